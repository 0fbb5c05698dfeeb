import ConfabModel
import GRDB

extension ConfabStore {
    /// Unread = messages from others past my read mark for their author, blocked authors
    /// aside; my person's other devices are not others (`:me` is my person, Protocol.md §20.11). Read marks move only forward (`markRead`), so counting each author's rows
    /// above the mark is exact; it walks the (conversation, author, seq) index from the
    /// mark, so a conversation that is read costs one probe per author, not a scan of its
    /// messages (the list computes this for every conversation).
    static let unreadCountSQL = """
        (SELECT COALESCE(SUM(
            (SELECT COUNT(*) FROM message m
             WHERE m.conversationId = h.conversationId AND m.author = h.author AND m.seq > COALESCE(r.seq, 0)
             AND COALESCE(m.person, m.author) != :me AND NOT \(hiddenByRemovalSQL("m")))
         ), 0)
         FROM head h
         LEFT JOIN read_mark r ON r.conversationId = h.conversationId AND r.author = h.author
         WHERE h.conversationId = c.id AND h.author != :me AND h.author NOT IN \(blockedAuthorsSQL))
        """

    public func unreadCount(_ conversation: ConversationID) throws -> Int {
        try read { db in
            try Int.fetchOne(
                db, sql: "SELECT \(Self.unreadCountSQL) FROM conversation c WHERE c.id = :id",
                arguments: ["me": myPerson.bytes, "id": conversation.bytes]) ?? 0
        }
    }

    /// Total unread across conversations that are not muted, archived or deleted.
    public func totalUnread() throws -> Int {
        try read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COALESCE(SUM(\(Self.unreadCountSQL)), 0) FROM conversation c
                    LEFT JOIN local_state ls ON ls.conversationId = c.id
                    WHERE COALESCE(ls.muted, 0) = 0 AND COALESCE(ls.archived, 0) = 0 AND ls.deletedAt IS NULL
                    """,
                arguments: ["me": myPerson.bytes]) ?? 0
        }
    }
}
