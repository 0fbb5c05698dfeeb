extension ConfabStore {
    /// A message written by a key that is no longer a member, and that the change which took
    /// it out had not seen (its seq is above the removal's frontier for its author): written
    /// concurrently with its removal, it is kept in the log but not shown, counted or found
    /// (Protocol.md §4.8.7). `alias` names the `message` row.
    static func hiddenByRemovalSQL(_ alias: String) -> String {
        """
        EXISTS (SELECT 1 FROM former_member f
                WHERE f.conversationId = \(alias).conversationId AND f.nodeId = \(alias).author
                AND \(alias).seq > COALESCE(json_extract(f.cap, '$."' || lower(hex(\(alias).author)) || '"'), 0))
        """
    }
}
