import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Writes my reaction `emoji` to message `target` in `conversation`, or takes it back
    /// (`removed`) (Protocol.md §4.5, "react"). Any message still there can be reacted to,
    /// mine or another member's. Refuses what would change nothing: an emoji I already
    /// have there, one I do not have to take back, more than `Limits.maxReactionsPerReactor`.
    public func react(
        _ emoji: String, to target: MessageRef, in conversation: ConversationID, removed: Bool = false,
        now: Date = Date()
    ) throws -> Entry {
        guard let normalized = ReactionEmoji.normalized(emoji) else {
            throw StoreError.invalidInput(
                "\"\(TextSanitizer.line(emoji))\" is not one emoji; a reaction is a single emoji such as 👍")
        }
        return try write { db in
            try self.requireMessage(target, in: conversation, for: "react to", db: db)
            let mine = try self.myReactions(to: target, in: conversation, db: db)
            if removed {
                guard mine.contains(normalized) else {
                    throw StoreError.invalidInput("you have not reacted with \(normalized) to that message")
                }
            } else {
                guard !mine.contains(normalized) else {
                    throw StoreError.invalidInput(
                        "you already reacted with \(normalized) to that message (--remove takes it back)")
                }
                guard mine.count < Limits.maxReactionsPerReactor else {
                    throw StoreError.invalidInput(
                        "you have \(mine.count) reactions on that message, the most one person may have; "
                            + "take one back first")
                }
            }
            let key = try self.sealingKey(in: conversation, db: db, now: now)
            let reaction = ReactionContent(target: target, emoji: normalized, removed: removed)
            return try self.authorEntry(
                in: conversation, db: db, now: now, context: BatchContext(store: self, now: now)
            ) {
                seq in
                let sealed = try ConversationCipher.sealReaction(
                    reaction, key: key, conversationID: conversation, author: self.me, seq: seq)
                return (.react(sealed: sealed), .reaction(reaction))
            }
        }
    }

    /// The emoji I have on a message now.
    private func myReactions(to target: MessageRef, in conversation: ConversationID, db: Database) throws -> Set<String>
    {
        Set(
            try String.fetchAll(
                db,
                sql: """
                    SELECT emoji FROM reaction WHERE conversationId = ? AND targetAuthor = ? AND targetSeq = ?
                    AND reactor = ? AND removed = 0
                    """,
                arguments: [conversation.bytes, target.author.bytes, target.seq, me.bytes]))
    }

    /// The reaction an entry of `reactor` at `seq` stored, if that entry is the one that
    /// decides its row now: what events report.
    public func reaction(
        in conversation: ConversationID, reactor: NodeID, seq: UInt64
    ) throws -> (target: MessageRef, change: ReactionChange)? {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT targetAuthor, targetSeq, emoji, removed FROM reaction
                        WHERE conversationId = ? AND reactor = ? AND seq = ?
                        """,
                    arguments: [conversation.bytes, reactor.bytes, seq])
            else { return nil }
            let names = try self.nameMap(conversation: conversation, db: db)
            return (
                MessageRef(author: row.nodeID("targetAuthor"), seq: row["targetSeq"]),
                ReactionChange(
                    reactor: reactor, reactorName: names[reactor] ?? reactor.shortHex, emoji: row["emoji"],
                    removed: row["removed"])
            )
        }
    }
}
