import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Writes an edit of my message `target` in `conversation` (Protocol.md §4.5): every
    /// node then shows `text` as the message's text, marked edited, and keeps the trail.
    public func editMessage(
        _ target: UInt64, in conversation: ConversationID, text: String, now: Date = Date()
    ) throws -> Entry {
        try Self.checkText(text)
        return try write { db in
            let current = try self.requireOwnMessage(target, in: conversation, db: db)
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM file_message WHERE conversationId = ? AND author = ? AND seq = ?",
                    arguments: [conversation.bytes, self.me.bytes, target]) == nil
            else {
                throw StoreError.invalidInput(
                    "message \(target) is a file, which cannot be edited; delete it for everyone (unsend) and send it again"
                )
            }
            guard current != text else { throw StoreError.invalidInput("the new text is the same as the message's") }
            let key = try self.sealingKey(in: conversation, db: db, now: now)
            let content = try Self.content(
                text, replyTo: nil, candidates: try self.mentionCandidates(in: conversation, db: db))
            return try self.authorEntry(
                in: conversation, db: db, now: now, context: BatchContext(store: self, now: now)
            ) {
                seq in
                let sealed = try ConversationCipher.sealMessage(
                    content, key: key, conversationID: conversation, author: self.me, seq: seq)
                return (.edit(target: target, sealed: sealed), .message(content))
            }
        }
    }

    /// Writes a deletion for everyone of my message `target` (Protocol.md §4.5).
    public func unsendMessage(_ target: UInt64, in conversation: ConversationID, now: Date = Date()) throws -> Entry {
        let entry = try write { db in
            _ = try self.requireOwnMessage(target, in: conversation, db: db)
            return try self.authorEntry(in: conversation, body: .unsend(target: target), db: db, now: now)
        }
        // A file deleted for everyone leaves this disk too (Protocol.md §17.2), and the
        // words leave the write-ahead log (§8.0).
        try removeOrphanedFiles()
        scrubIfDue()
        return entry
    }

    /// My latest message in `conversation` that is still there to edit or delete.
    public func lastOwnMessageSeq(in conversation: ConversationID) throws -> UInt64? {
        try read { db in
            try UInt64.fetchOne(
                db,
                sql: """
                    SELECT seq FROM message WHERE conversationId = ? AND author = ? AND deletedAt IS NULL
                    ORDER BY seq DESC LIMIT 1
                    """,
                arguments: [conversation.bytes, self.me.bytes])
        }
    }

    /// The current text of my message `target`; refuses what is not mine, not a message,
    /// or deleted for everyone already.
    private func requireOwnMessage(_ target: UInt64, in conversation: ConversationID, db: Database) throws -> String? {
        try requireConversation(conversation, db: db)
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT text, deletedAt FROM message WHERE conversationId = ? AND author = ? AND seq = ?",
                arguments: [conversation.bytes, me.bytes, target])
        else {
            throw StoreError.invalidInput(
                "there is no message of yours with seq \(target) in this conversation (history --json shows each message's seq)"
            )
        }
        guard (row["deletedAt"] as Int64?) == nil else {
            throw StoreError.invalidInput("message \(target) was deleted for everyone; it can no longer be changed")
        }
        return row["text"]
    }
}
