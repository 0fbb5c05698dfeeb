import ConfabCrypto
import ConfabModel
import ConfabWire
import GRDB

extension ConfabStore {
    /// Messages are decrypted once, on the way in, so that lists, history and search read
    /// plain text. `clockSum` is the entry's display-order sum as stored (`orderingSum`).
    func insertMessage(
        _ entry: Entry, sealed: [UInt8], clockSum: UInt64, db: Database, context: BatchContext
    ) throws {
        let key = try context.key(entry.conversationID, db: db)
        // A relay holds the raw entry only; a participant without a usable key shows the
        // message as one it could not decrypt.
        let participant = try context.participants(entry.conversationID, db: db).contains(me)
        guard key != nil || participant else { return }
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
}
