import ConfabModel
import GRDB

extension ConfabStore {
    /// Joins `conversation c` to the conversations `me` (an SQL parameter) is a member of, or
    /// was and was removed from or left (still readable, read-only, Protocol.md §4.8); not
    /// those held only as an invitation that never added it.
    static func mineSQL(_ me: String) -> String {
        """
        JOIN (SELECT conversationId FROM participant WHERE nodeId = \(me)
              UNION SELECT conversationId FROM former_member WHERE nodeId = \(me)) mine
          ON mine.conversationId = c.id
        """
    }

    /// Ids of every conversation I take part in (or took part in), for resolving a typed
    /// id prefix.
    public func conversationIDs() throws -> [ConversationID] {
        try read { db in
            try [UInt8].fetchAll(
                db,
                sql: """
                    SELECT c.id FROM conversation c
                    \(Self.mineSQL(":me"))
                    LEFT JOIN local_state ls ON ls.conversationId = c.id
                    WHERE ls.deletedAt IS NULL ORDER BY c.lastActivityAt DESC
                    """,
                arguments: ["me": myPerson.bytes]
            ).compactMap(ConversationID.init(bytes:))
        }
    }

    /// What a conversation is called here, as its summary's `displayName`: its title, else
    /// the other participants' names; nil where there is no summary (not held, deleted
    /// here, or not mine). Without the summary's unread count and last message.
    public func conversationName(_ id: ConversationID) throws -> String? {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT c.title FROM conversation c
                        \(Self.mineSQL(":me"))
                        LEFT JOIN local_state ls ON ls.conversationId = c.id
                        WHERE ls.deletedAt IS NULL AND c.id = :id
                        """,
                    arguments: ["me": myPerson.bytes, "id": id.bytes])
            else { return nil }
            if let title = row["title"] as String?, !title.isEmpty { return title }
            return try participantNames(conversation: id, db: db).map(\.name).joined(separator: ", ")
        }
    }

    /// The most recent conversation with `peer`, preferring threads with just the two of
    /// us over groups.
    public func latestConversation(with peer: NodeID) throws -> ConversationID? {
        try read { db in
            try [UInt8].fetchOne(
                db,
                sql: """
                    SELECT c.id FROM conversation c
                    JOIN participant them ON them.conversationId = c.id AND them.nodeId = :peer
                    JOIN participant mine ON mine.conversationId = c.id AND mine.nodeId = :me
                    LEFT JOIN local_state ls ON ls.conversationId = c.id
                    WHERE ls.deletedAt IS NULL OR EXISTS (SELECT 1 FROM head h WHERE h.conversationId = c.id)
                    ORDER BY (SELECT COUNT(*) FROM participant p WHERE p.conversationId = c.id) = 2 DESC,
                        c.lastActivityAt DESC
                    LIMIT 1
                    """,
                arguments: ["peer": peer.bytes, "me": myPerson.bytes]
            ).flatMap(ConversationID.init(bytes:))
        }
    }

    /// Participants in the creator's order (the creator first); empty when the
    /// conversation is not held.
    /// The other participants, with their names and trust here: one query, where the
    /// conversation's whole summary (`conversation(_:)`) reads its last message and counts.
    public func otherParticipants(of conversation: ConversationID) throws -> [ConversationSummary.Participant] {
        try readUnisolated { db in try participantNames(conversation: conversation, db: db) }
    }

    public func participants(of conversation: ConversationID) throws -> [NodeID] {
        // One statement each, asked with every batch a peer sends (admission) and every send.
        try readUnisolated { db in try NodeID.fetchParticipants(db, conversation: conversation) }
    }

    public func creator(of conversation: ConversationID) throws -> NodeID? {
        try readUnisolated { db in
            try [UInt8].fetchOne(
                db.cachedStatement(sql: "SELECT creator FROM conversation WHERE id = ?"),
                arguments: [conversation.bytes]
            ).flatMap(NodeID.init(bytes:))
        }
    }

    /// The key of a conversation this node can read; internal (tests sign entries with it).
    func conversationKey(_ conversation: ConversationID) throws -> [UInt8]? {
        try read { db in try Self.conversationKey(conversation, db: db) }
    }

    /// nil when the conversation is not held, or held without a key (a relay, or a sealed
    /// key that did not open).
    static func conversationKey(_ conversation: ConversationID, db: Database) throws -> [UInt8]? {
        try [UInt8].fetchOne(
            db.cachedStatement(sql: "SELECT conversationKey FROM conversation WHERE id = ?"),
            arguments: [conversation.bytes])
    }

    func requireConversation(_ conversation: ConversationID, db: Database) throws {
        guard
            try Bool.fetchOne(db, sql: "SELECT 1 FROM conversation WHERE id = ?", arguments: [conversation.bytes])
                != nil
        else {
            throw StoreError.unknownConversation(conversation.hex)
        }
    }
}

extension NodeID {
    static func fetchParticipants(_ db: Database, conversation: ConversationID) throws -> [NodeID] {
        try [UInt8].fetchAll(
            db.cachedStatement(sql: "SELECT nodeId FROM participant WHERE conversationId = ? ORDER BY position"),
            arguments: [conversation.bytes]
        ).compactMap { NodeID(bytes: $0) }
    }
}
