import ConfabModel
import GRDB

extension ConfabStore {
    /// Unread = messages from others past my read mark for their author, blocked authors aside. Read marks move
    /// only forward (`markRead`), and each author's log is contiguous, so a count of rows
    /// above the mark is exact. The index on message(conversationId, …) keeps it cheap.
    static let unreadCountSQL = """
        (SELECT COUNT(*) FROM message m
         LEFT JOIN read_mark r ON r.conversationId = m.conversationId AND r.author = m.author
         WHERE m.conversationId = c.id AND m.author != :me AND m.seq > COALESCE(r.seq, 0)
         AND m.author NOT IN \(blockedAuthorsSQL))
        """

    public func unreadCount(_ conversation: ConversationID) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(
                db, sql: "SELECT \(Self.unreadCountSQL) FROM conversation c WHERE c.id = :id",
                arguments: ["me": me.bytes, "id": conversation.bytes]) ?? 0
        }
    }

    /// Total unread across conversations that are not muted, archived or deleted.
    public func totalUnread() throws -> Int {
        try writer.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COALESCE(SUM(\(Self.unreadCountSQL)), 0) FROM conversation c
                    LEFT JOIN local_state ls ON ls.conversationId = c.id
                    WHERE COALESCE(ls.muted, 0) = 0 AND COALESCE(ls.archived, 0) = 0 AND ls.deletedAt IS NULL
                    """,
                arguments: ["me": me.bytes]) ?? 0
        }
    }
}
