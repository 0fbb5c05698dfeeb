import ConfabModel
import GRDB

/// Reading on one of my person's devices is reading here (Protocol.md §20.14): a read
/// receipt written by another device of my person moves my read marks as `markRead` would,
/// so its unread count clears on every device, and my next `markRead` finds the person's
/// receipt already covering it and writes none of its own.
extension ConfabStore {
    /// Called for a receipt entry stored whose person is mine and whose author is another
    /// device (never for my own: `markRead` moved my marks already).
    func adoptReadMarks(_ conversation: ConversationID, read: VectorClock, db: Database) throws {
        var moved = false
        for (author, seq) in read.entries where author != me && seq > 0 {
            let held =
                try UInt64.fetchOne(
                    db.cachedStatement(sql: "SELECT seq FROM read_mark WHERE conversationId = ? AND author = ?"),
                    arguments: [conversation.bytes, author.bytes]) ?? 0
            guard seq > held else { continue }
            try db.cachedStatement(
                sql: """
                    INSERT INTO read_mark(conversationId, author, seq) VALUES (?, ?, ?)
                    ON CONFLICT(conversationId, author) DO UPDATE SET seq = max(seq, excluded.seq)
                    """
            ).execute(arguments: [conversation.bytes, author.bytes, seq])
            moved = true
        }
        // A read of something new elsewhere is a read here: it ends a "mark unread" as
        // `markRead` does. A receipt that reads nothing new (older, or relayed late) leaves it.
        if moved {
            try db.cachedStatement(
                sql: "UPDATE local_state SET markedUnread = 0 WHERE conversationId = ?"
            ).execute(arguments: [conversation.bytes])
        }
    }
}
