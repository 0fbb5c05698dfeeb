import ConfabCrypto
import ConfabModel
import ConfabWire
import GRDB

extension ConfabStore {
    /// An edit or an unsend acts on an earlier message of its own author (Protocol.md §4.5):
    /// the target is in the author's log below the entry, so it is held here whenever the
    /// entry is (the log has no gaps), unless this node deleted the conversation's copies
    /// (§8), in which case there is nothing left to act on and the entry is simply kept.
    /// Every node — relays too, which hold the log but no key — checks the same thing.
    func checkActionTarget(_ entry: Entry, target: UInt64, db: Database) throws {
        let position: StatementArguments = [entry.conversationID.bytes, entry.author.bytes, target]
        guard
            let kind = try Int.fetchOne(
                db.cachedStatement(sql: "SELECT kind FROM entry WHERE conversationId = ? AND author = ? AND seq = ?"),
                arguments: position)
        else { return }
        // A file can be deleted for everyone like a message, but not edited (Protocol.md §17.2).
        let actionable = entry.kind == .unsend ? [EntryKind.message, .file] : [.message]
        guard actionable.contains(where: { $0.rawValue == kind }) else {
            let name = EntryKind(rawValue: kind).map { "\($0)" } ?? "kind \(kind)"
            throw AppendRejection.badTarget("(seq \(target)) is not a message but a \(name) entry")
        }
        if try Int.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM unsent WHERE conversationId = ? AND author = ? AND target = ?"),
            arguments: position) != nil
        {
            throw AppendRejection.badTarget("(seq \(target)) was deleted for everyone already")
        }
    }

    /// The edit's text replaces the message's, and its mentions the message's (the reply
    /// stays the original's: an edit's own `reply_to` is ignored); the text it replaces
    /// joins the edit trail. An author's entries arrive in seq order, so the latest edit is
    /// the last applied; the seq check keeps it so whatever the path.
    func applyEdit(
        _ entry: Entry, target: UInt64, sealed: [UInt8], epoch: EntryRef?, db: Database, context: BatchContext
    ) throws {
        guard let epoch, let key = try context.epochKey(entry.conversationID, epoch: epoch, db: db),
            let content = context.authoredMessage(entry.hash)
                ?? (try? ConversationCipher.openMessageContent(
                    sealed, key: SecureBytes(key), conversationID: entry.conversationID, author: entry.author,
                    seq: entry.seq)),
            (try? Self.checkText(content.text)) != nil
        else { return }
        let text = content.text
        let position: StatementArguments = [entry.conversationID.bytes, entry.author.bytes, target]
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT text, timestamp, editedAt, editSeq, deletedAt FROM message
                        WHERE conversationId = ? AND author = ? AND seq = ?
                        """),
                arguments: position),
            (row["deletedAt"] as Int64?) == nil
        else { return }
        let currentSeq: UInt64 = row["editSeq"] ?? target
        guard entry.seq > currentSeq else { return }
        if let old = row["text"] as String? {
            let writtenAt: Int64 = row["editedAt"] ?? row["timestamp"]
            try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO message_version(conversationId, author, target, seq, timestamp, text)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: position + [currentSeq, writtenAt, old])
        }
        try db.cachedStatement(
            sql: """
                UPDATE message SET text = ?, editedAt = ?, editSeq = ?
                WHERE conversationId = ? AND author = ? AND seq = ?
                """
        ).execute(arguments: [text, entry.timestamp, entry.seq] + position)
        try storeMentions(
            content, of: entry, target: target, members: try members(of: entry, context: context, db: db), db: db)
    }

    /// Delete for everyone: the message's text, its edit trail and its words in the search
    /// index go; the signed entries stay, so the log still verifies and travels
    /// (Protocol.md §4.5 says exactly what remains).
    func applyUnsend(_ entry: Entry, target: UInt64, db: Database) throws {
        let position: StatementArguments = [entry.conversationID.bytes, entry.author.bytes, target]
        try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO unsent(conversationId, author, target, seq) VALUES (?, ?, ?, ?)"
        ).execute(arguments: position + [entry.seq])
        try db.cachedStatement(
            sql: """
                UPDATE message SET text = NULL, deletedAt = ?
                WHERE conversationId = ? AND author = ? AND seq = ? AND deletedAt IS NULL
                """
        ).execute(arguments: [entry.timestamp] + position)
        guard db.changesCount > 0 else { return }
        deletionWritten()
        try forgetFileMessage(position, db: db)
        try db.cachedStatement(
            sql: "DELETE FROM message_version WHERE conversationId = ? AND author = ? AND target = ?"
        ).execute(arguments: position)
        // What the plaintext said beyond its text goes too: whom it answered, whom it named.
        try db.cachedStatement(sql: "DELETE FROM mention WHERE conversationId = ? AND author = ? AND seq = ?")
            .execute(arguments: position)
        try db.cachedStatement(
            sql: """
                UPDATE message SET replyAuthor = NULL, replySeq = NULL
                WHERE conversationId = ? AND author = ? AND seq = ?
                """
        ).execute(arguments: position)
        // FTS5 records a removal as a marker in a newer segment; the old segment keeps the
        // words until segments merge. Merging now removes them from the file for good.
        try db.execute(sql: "INSERT INTO message_fts(message_fts) VALUES ('optimize')")
    }
}
