import ConfabModel
import GRDB

/// Whose device lists a peer may be told of (Protocol.md §20.9): only those of persons the
/// peer meets in a conversation held here, so that a list sent never tells the peer whom
/// else this node talks to. A relay holds conversations it takes no part in, and passes the
/// lists of their members to the members it carries them for, as a member would.
extension ConfabStore {
    /// The persons, neither this node's nor the peer's, whose list is held here and who take
    /// part in a conversation held here that the peer (its person, for another person's
    /// device) takes part in; sorted.
    public func deviceListPersons(sharedWith peer: NodeID) throws -> [NodeID] {
        try read { db in
            let them = try sessionPerson(of: peer, db: db)
            return try [UInt8].fetchAll(
                db.cachedStatement(
                    // From the persons whose list is held (few; none for most nodes), not
                    // from the participants of every shared conversation: this runs at
                    // every session's start, and a large group has a thousand of them.
                    sql: """
                        SELECT held.person FROM (SELECT DISTINCT person FROM device_entry) held
                        WHERE held.person NOT IN (:me, :peer, :them) AND EXISTS (
                            SELECT 1 FROM participant person
                            JOIN participant them ON them.conversationId = person.conversationId AND them.nodeId = :them
                            WHERE person.nodeId = held.person)
                        ORDER BY held.person
                        """),
                arguments: ["me": myPerson.bytes, "peer": peer.bytes, "them": them.bytes]
            ).compactMap(NodeID.init(bytes:))
        }
    }

    /// Whether `person` takes part in a conversation held here that `peer` (its person)
    /// takes part in: then `peer` may be sent `person`'s list. With `peer` nil, whether
    /// `person` takes part in any conversation held here: then a list of theirs is worth
    /// keeping. A node holds the conversations it is in; a relay, those it carries too.
    public func sharesConversation(with person: NodeID, peer: NodeID?) throws -> Bool {
        try read { db in
            let them = try peer.map { try sessionPerson(of: $0, db: db) }
            return try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS (
                            SELECT 1 FROM participant person
                            WHERE person.nodeId = :person AND (:them IS NULL OR EXISTS (
                                SELECT 1 FROM participant them
                                WHERE them.conversationId = person.conversationId AND them.nodeId = :them)))
                        """),
                arguments: ["person": person.bytes, "them": them?.bytes]) ?? false
        }
    }

    /// Whom a session with `peer` speaks for when lists are shared: the person whose list
    /// names it (`deviceOwner`), or itself.
    private func sessionPerson(of peer: NodeID, db: Database) throws -> NodeID {
        try deviceOwner(of: peer, db: db)?.person ?? peer
    }
}
