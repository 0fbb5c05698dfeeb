import ConfabCrypto
import ConfabModel
import ConfabWire
import GRDB

extension ConfabStore {
    /// A reaction (Protocol.md §4.5, "react"): per reactor, message and emoji, the reactor's
    /// entry with the highest seq decides whether the emoji is on. One author's entries are
    /// taken in seq order, so every node that holds its log to the same seq agrees, whatever
    /// order the entries came in and whatever their timestamps say. A reaction that does
    /// not open, names no message held here within its causal clock (`isHeldMessage`),
    /// carries no valid emoji, or would give its reactor more than
    /// `Limits.maxReactionsPerReactor` emoji on one message changes nothing. Relays hold no
    /// key and keep only the entry. It opens with the key of the epoch in force at its
    /// position (Protocol.md §4.8), like a message.
    func applyReaction(
        _ entry: Entry, sealed: [UInt8], epoch: EntryRef?, db: Database, context: BatchContext
    ) throws {
        guard let epoch, let key = try context.epochKey(entry.conversationID, epoch: epoch, db: db),
            let reaction = context.authoredReaction(entry.hash)
                ?? (try? ConversationCipher.openReaction(
                    sealed, key: SecureBytes(key), conversationID: entry.conversationID, author: entry.author,
                    seq: entry.seq)),
            try isHeldMessage(reaction.target, of: entry, db: db)
        else { return }
        let message: StatementArguments = [
            entry.conversationID.bytes, reaction.target.author.bytes, reaction.target.seq, entry.author.bytes,
        ]
        if !reaction.removed {
            let others =
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT count(*) FROM reaction WHERE conversationId = ? AND targetAuthor = ? AND targetSeq = ?
                            AND reactor = ? AND removed = 0 AND emoji != ?
                            """),
                    arguments: message + [reaction.emoji]) ?? 0
            guard others < Limits.maxReactionsPerReactor else { return }
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO reaction(conversationId, targetAuthor, targetSeq, reactor, emoji, seq, timestamp, removed)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(conversationId, targetAuthor, targetSeq, reactor, emoji) DO UPDATE
                SET seq = excluded.seq, timestamp = excluded.timestamp, removed = excluded.removed
                WHERE excluded.seq > reaction.seq
                """
        ).execute(arguments: message + [reaction.emoji, entry.seq, entry.timestamp, reaction.removed])
    }
}
