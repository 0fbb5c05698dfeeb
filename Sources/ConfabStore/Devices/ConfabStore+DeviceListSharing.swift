import ConfabModel
import GRDB

/// Whose device lists a peer may be told of (Protocol.md §20.9): only those of persons this
/// node and the peer both meet in a conversation, so that a list sent never tells the peer
/// whom else this node talks to.
extension ConfabStore {
    /// The persons, neither this node's nor `peer`'s, whose list is held here and who take
    /// part in a conversation that this node and `peer` both take part in; sorted.
    public func deviceListPersons(sharedWith peer: NodeID) throws -> [NodeID] {
        try read { db in
            try [UInt8].fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT DISTINCT person.nodeId FROM participant mine
                        JOIN participant them ON them.conversationId = mine.conversationId AND them.nodeId = :peer
                        JOIN participant person ON person.conversationId = mine.conversationId
                        WHERE mine.nodeId = :me AND person.nodeId NOT IN (:me, :peer)
                            AND EXISTS (SELECT 1 FROM device_entry WHERE device_entry.person = person.nodeId)
                        ORDER BY person.nodeId
                        """),
                arguments: ["me": me.bytes, "peer": peer.bytes]
            ).compactMap(NodeID.init(bytes:))
        }
    }

    /// Whether `person` takes part in a conversation that this node and `peer` both take
    /// part in: then `peer` may be sent `person`'s list. With `peer` nil, whether `person`
    /// takes part in any conversation this node does: then a list of theirs is worth keeping.
    public func sharesConversation(with person: NodeID, peer: NodeID?) throws -> Bool {
        try read { db in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS (
                            SELECT 1 FROM participant mine
                            JOIN participant person
                                ON person.conversationId = mine.conversationId AND person.nodeId = :person
                            WHERE mine.nodeId = :me AND (:peer IS NULL OR EXISTS (
                                SELECT 1 FROM participant them
                                WHERE them.conversationId = mine.conversationId AND them.nodeId = :peer)))
                        """),
                arguments: ["me": me.bytes, "person": person.bytes, "peer": peer?.bytes]) ?? false
        }
    }
}
