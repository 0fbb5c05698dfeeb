extension ConfabStore {
    /// A message shown is one whose author is a member now, or was one when the change that
    /// took it out was written (its seq within that removal's frontier). Any other was
    /// written concurrently with its author's removal, or by a key whose add came to
    /// nothing in the fold: kept in the log, but not shown, counted or found (Protocol.md
    /// §4.8.7). A room lists nobody: anyone's message there is shown (§18.2). `alias`
    /// names the `message` row.
    ///
    /// Members are persons; a message of a device is its person's (`person`, Protocol.md
    /// §20.11), while a removal's frontier counts the signing key's seqs.
    static func hiddenByRemovalSQL(_ alias: String) -> String {
        """
        (NOT EXISTS (SELECT 1 FROM participant p
                     WHERE p.conversationId = \(alias).conversationId
                     AND p.nodeId = COALESCE(\(alias).person, \(alias).author))
         AND NOT EXISTS (SELECT 1 FROM former_member f
                WHERE f.conversationId = \(alias).conversationId
                AND f.nodeId = COALESCE(\(alias).person, \(alias).author)
                AND \(alias).seq <= COALESCE(json_extract(f.cap, '$."' || lower(hex(\(alias).author)) || '"'), 0))
         AND NOT EXISTS (SELECT 1 FROM conversation r WHERE r.id = \(alias).conversationId AND r.room IS NOT NULL))
        """
    }
}
