import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// The conversation list: pinned first, then newest activity. Deleted conversations are
    /// hidden until a new message arrives in them.
    public func conversations(_ filter: ConversationFilter = .inbox) throws -> [ConversationSummary] {
        try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: Self.summarySQL + " \(Self.clause(filter)) ORDER BY pinned DESC, c.lastActivityAt DESC, c.id",
                arguments: ["me": myPerson.bytes])
            return try rows.map { try self.summary(row: $0, db: db) }
        }
    }

    /// The first `limit` rows of the list: what a screen shows first, before the rest is
    /// loaded. Only those rows' unread counts and previews are computed.
    public func conversations(_ filter: ConversationFilter = .inbox, limit: Int) throws -> [ConversationSummary] {
        try read { db in
            let ids = try [UInt8].fetchAll(
                db,
                sql: """
                    SELECT c.id FROM conversation c
                    \(Self.mineSQL(":me"))
                    LEFT JOIN local_state ls ON ls.conversationId = c.id
                    WHERE ls.deletedAt IS NULL AND c.personal = 0 \(Self.clause(filter))
                    ORDER BY COALESCE(ls.pinned, 0) DESC, c.lastActivityAt DESC, c.id LIMIT :limit
                    """,
                arguments: ["me": myPerson.bytes, "limit": limit])
            let one = try db.cachedStatement(sql: Self.summarySQL + " AND c.id = :id")
            return try ids.compactMap { id in
                try Row.fetchOne(one, arguments: ["me": myPerson.bytes, "id": id]).map {
                    try self.summary(row: $0, db: db)
                }
            }
        }
    }

    private static func clause(_ filter: ConversationFilter) -> String {
        switch filter {
        case .inbox: return "AND COALESCE(ls.archived, 0) = 0"
        case .archived: return "AND COALESCE(ls.archived, 0) = 1"
        case .all: return ""
        }
    }

    /// One conversation's summary; nil when unknown, deleted here, or not mine (a relay
    /// holds conversations it cannot read).
    public func conversation(_ id: ConversationID) throws -> ConversationSummary? {
        try read { db in
            try Row.fetchOne(
                db, sql: Self.summarySQL + " AND c.id = :id", arguments: ["me": myPerson.bytes, "id": id.bytes]
            ).map { try self.summary(row: $0, db: db) }
        }
    }

    /// The columns of a conversation row, for conversations I take part in that are not
    /// deleted and not the personal one (Protocol.md §20.15, which no view lists); callers add
    /// conditions and order.
    private static let summarySQL = """
        SELECT c.id, c.title, c.createdAt, c.lastActivityAt, c.keyProblem,
            COALESCE(ls.pinned, 0) AS pinned, COALESCE(ls.archived, 0) AS archived,
            COALESCE(ls.muted, 0) AS muted, COALESCE(ls.markedUnread, 0) AS markedUnread,
            \(unreadCountSQL) AS unread
        FROM conversation c
        \(mineSQL(":me"))
        LEFT JOIN local_state ls ON ls.conversationId = c.id
        WHERE ls.deletedAt IS NULL AND c.personal = 0
        """

    private func summary(row: Row, db: Database) throws -> ConversationSummary {
        let id = row.conversationID("id")
        let participants = try participantNames(conversation: id, db: db)
        var lastMessage: ConversationSummary.LastMessage?
        // Cached statements: the list runs these once per conversation, and compiling
        // them each time cost more than running them.
        if let last = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT author, person, seq, text, timestamp, deletedAt,
                        EXISTS (SELECT 1 FROM file_message f WHERE f.conversationId = message.conversationId
                            AND f.author = message.author AND f.seq = message.seq) AS isFile
                    FROM message
                    WHERE conversationId = ? AND author NOT IN \(Self.blockedAuthorsSQL)
                    AND NOT \(Self.hiddenByRemovalSQL("message"))
                    ORDER BY clockSum DESC, timestamp DESC, author DESC, seq DESC LIMIT 1
                    """),
            arguments: [id.bytes])
        {
            let author = last.nodeID("author")
            // A device's message is its person's (Protocol.md §20.11).
            let isMine = ((last["person"] as [UInt8]?).flatMap(NodeID.init(bytes:)) ?? author) == myPerson
            var text = last["text"] as String?
            // Mentions read with this node's names, as in the chat (only a text with an "@"
            // can hold one).
            if let raw = text, raw.utf8.contains(0x40) {
                let details = MessageDetails(store: self, conversation: id, names: nameMap(participants), db: db)
                text = try details.render(raw, try details.mentions(of: MessageRef(author: author, seq: last["seq"])))
            }
            lastMessage = .init(
                author: author, isMine: isMine,
                text: text.map { last["isFile"] ? "📎 " + $0 : $0 }
                    ?? ((last["deletedAt"] as Int64?) != nil
                        ? ChatMessage.deletedText : "(message could not be decrypted)"),
                sentAt: Date(milliseconds: last["timestamp"]),
                status: isMine
                    ? try self.deliveryContext(id, db: db).status(of: author, seq: last["seq"]) : nil)
        }
        var summary = ConversationSummary(
            id: id, title: row["title"], participants: participants,
            createdAt: Date(milliseconds: row["createdAt"]), lastActivityAt: Date(milliseconds: row["lastActivityAt"]),
            lastMessage: lastMessage, unreadCount: row["unread"], isMarkedUnread: row["markedUnread"],
            isPinned: row["pinned"], isArchived: row["archived"], isMuted: row["muted"])
        summary.keyProblem = row["keyProblem"]
        summary.isFormerMember =
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM former_member WHERE conversationId = ? AND nodeId = ?"),
                arguments: [id.bytes, me.bytes]) ?? false
        summary.forkedAuthors = try [UInt8].fetchAll(
            db.cachedStatement(sql: "SELECT author FROM fork_proof WHERE conversationId = ? ORDER BY author"),
            arguments: [id.bytes]
        ).compactMap(NodeID.init(bytes:))
        return summary
    }
}
