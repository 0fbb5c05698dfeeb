import ConfabModel
import Foundation
import GRDB

/// Read marks: how far I have read each author of a conversation, what unread counts are
/// counted from. They live on this machine; others learn of them through my read receipts.
extension ConfabStore {
    /// Records that I have read everything held in the conversation: moves my read marks
    /// and, when that covers anything new from others, appends a coalesced receipt entry.
    @discardableResult
    public func markRead(_ conversation: ConversationID, now: Date = Date()) throws -> Entry? {
        try write { db in
            try db.cachedStatement(
                sql: "UPDATE local_state SET markedUnread = 0 WHERE conversationId = ?"
            ).execute(arguments: [conversation.bytes])
            var others = try VectorClock.fetchHeld(db, conversation: conversation)
            others[self.me] = 0
            for (author, seq) in others.entries {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO read_mark(conversationId, author, seq) VALUES (?, ?, ?)
                        ON CONFLICT(conversationId, author) DO UPDATE SET seq = max(seq, excluded.seq)
                        """
                ).execute(arguments: [conversation.bytes, author.bytes, seq])
            }
            return try self.receiptIfNeeded(conversation, read: true, db: db, now: now)
        }
    }
}
