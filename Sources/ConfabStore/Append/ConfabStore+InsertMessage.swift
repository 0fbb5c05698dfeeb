import ConfabCrypto
import ConfabModel
import ConfabWire
import GRDB

extension ConfabStore {
    /// Messages are decrypted once, on the way in, so that lists, history and search read
    /// plain text. `clockSum` is the entry's display-order sum as stored (`orderingSum`).
    func insertMessage(
        _ entry: Entry, sealed: [UInt8], clockSum: UInt64, epoch: EntryRef?, db: Database, context: BatchContext
    ) throws {
        // A relay holds the raw entry only, and so does a member for a message sealed to an
        // epoch it was not given (written before it joined, or while it was out): not
        // shown. A recipient without a usable key shows it as one it could not decrypt.
        guard let epoch, try isRecipient(of: epoch, in: entry.conversationID, db: db, context: context) else { return }
        let key = try context.epochKey(entry.conversationID, epoch: epoch, db: db)
        var text = key.flatMap { key in
            try? ConversationCipher.openMessage(
                sealed, key: SecureBytes(key), conversationID: entry.conversationID, author: entry.author,
                seq: entry.seq)
        }
        if let decrypted = text, (try? Self.checkText(decrypted)) == nil {
            // Text no sender may write (empty, only whitespace, over the limit) is kept in
            // the log but never shown, as the author's own node would have refused it.
            guard entry.author == me else { return }
            text = nil
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO message(conversationId, author, seq, timestamp, clockSum, text)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            entry.conversationID.bytes, entry.author.bytes, entry.seq, entry.timestamp, clockSum, text,
        ])
        if try !context.isBlocked(entry.author, db: db) {
            context.noteMessage(entry.conversationID, at: entry.timestamp)
        }
    }

    /// Whether this node was one of the keys `epoch` was sealed to, or holds its key anyway
    /// (shared with it as history, Protocol.md §4.8.5).
    func isRecipient(
        of epoch: EntryRef, in conversation: ConversationID, db: Database, context: BatchContext
    ) throws
        -> Bool
    {
        if try context.epochKey(conversation, epoch: epoch, db: db) != nil { return true }
        return try context.membershipLog(conversation, db: db)?.epochs[epoch]?.contains(me) ?? false
    }
}
