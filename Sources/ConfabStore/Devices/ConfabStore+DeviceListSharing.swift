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
                    // From the persons whose list is held (few; none for most nodes), not
                    // from the participants of every shared conversation: this runs at
                    // every session's start, and a large group has a thousand of them.
                    sql: """
                        SELECT held.person FROM (SELECT DISTINCT person FROM device_entry) held
                        WHERE held.person NOT IN (:me, :peer) AND EXISTS (
                            SELECT 1 FROM participant person
                            JOIN participant mine ON mine.conversationId = person.conversationId AND mine.nodeId = :me
                            JOIN participant them ON them.conversationId = person.conversationId AND them.nodeId = :peer
                            WHERE person.nodeId = held.person)
                        ORDER BY held.person
                        """),
                arguments: ["me": myPerson.bytes, "peer": peer.bytes]
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
                arguments: ["me": myPerson.bytes, "person": person.bytes, "peer": peer?.bytes]) ?? false
        }
    }
}
