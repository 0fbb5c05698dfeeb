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
        let key = try context.openingKey(entry.conversationID, epoch: epoch, db: db)
        let authored = context.authoredMessage(entry.hash)
        var content =
            authored
            ?? key.flatMap { key in
                try? ConversationCipher.openMessageContent(
                    sealed, key: key, conversationID: entry.conversationID, author: entry.author, seq: entry.seq)
            }
        if let decrypted = content, (try? Self.checkText(decrypted.text)) == nil {
            // Text no sender may write (empty, only whitespace, over the limit) is kept in
            // the log but never shown, as the author's own node would have refused it.
            guard entry.author == me else { return }
            content = nil
        }
        let reply = try content?.replyTo.flatMap {
            try isHeldMessage($0, of: entry, db: db) ? $0 : nil
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO message(conversationId, author, seq, timestamp, clockSum, text, replyAuthor, replySeq)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).insertRow([
            .blob(entry.conversationID.bytes), .blob(entry.author.bytes), .integer(entry.seq),
            .integer(entry.timestamp), .integer(clockSum), .text(content?.text), .blob(reply?.author.bytes),
            reply.map { .integer($0.seq) } ?? .null,
        ])
        // A new message has no mentions stored yet: only one that names someone writes any.
        var mentions: [Mention] = []
        if let content, !content.mentions.isEmpty {
            mentions = try storeMentions(
                content, of: entry, target: entry.seq, members: try members(of: entry, context: context, db: db),
                db: db)
        }
        if let authored {
            context.noteWritten(
                entry.hash, WrittenMessage(text: authored.text, clockSum: clockSum, reply: reply, mentions: mentions))
        }
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
        return try context.membershipLog(conversation, db: db)?.epochs[epoch]?.contains(myPerson) ?? false
    }

    /// The members when `entry` was written (its causal clock's view of the membership), so
    /// that every node judges its mentions alike whatever changed after.
    func members(of entry: Entry, context: BatchContext, db: Database) throws -> Set<NodeID> {
        Set(try context.membershipLog(entry.conversationID, db: db)?.view(entry.clock).members ?? [])
    }

    /// A reply or a reaction names a message its author had seen when writing: one its
    /// causal clock covers (Protocol.md §4.5). Honest writers always do — they hold what
    /// they answer — and since an entry is stored only once what its clock names is held
    /// (§7 step 4), such a target is always here before the entry that names it: one that
    /// arrives first waits, and applies once its target is in. So a reference is taken only
    /// when it names a message of this conversation held here; anything else (a message
    /// not written yet, the entry itself, a receipt, a seq that only exists in another
    /// conversation) is ignored, and the entry changes nothing else.
    func isHeldMessage(_ ref: MessageRef, of entry: Entry, db: Database) throws -> Bool {
        guard entry.clock[ref.author] >= ref.seq else { return false }
        return try Int.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM message WHERE conversationId = ? AND author = ? AND seq = ?"),
            arguments: [entry.conversationID.bytes, ref.author.bytes, ref.seq]) != nil
    }

    /// The mentions of message `target` (of `entry`'s author) become those of `content`:
    /// valid ranges naming members of the conversation only; returned in text order.
    @discardableResult
    func storeMentions(
        _ content: MessageContent, of entry: Entry, target: UInt64, members: Set<NodeID>, db: Database
    ) throws -> [Mention] {
        let position: StatementArguments = [entry.conversationID.bytes, entry.author.bytes, target]
        try db.cachedStatement(sql: "DELETE FROM mention WHERE conversationId = ? AND author = ? AND seq = ?")
            .execute(arguments: position)
        let valid = Mentions.valid(content.mentions, in: content.text, isMember: members.contains)
        for mention in valid {
            try db.cachedStatement(
                sql: """
                    INSERT INTO mention(conversationId, author, seq, start, length, person) VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: position + [mention.start, mention.length, mention.person.bytes])
        }
        return valid
    }
}
