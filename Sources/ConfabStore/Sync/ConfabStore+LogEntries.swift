import ConfabModel
import GRDB

/// Reading an author's log to send it: what a peer whose clock says `seq` is missing.
extension ConfabStore {
    /// Entries of `author` in `conversation` after `seq`, in seq order, at most `limit`.
    /// Entries deleted here leave holes in the seqs that a sender must not paper over.
    public func sequencedEntries(
        in conversation: ConversationID, author: NodeID, after seq: UInt64, limit: Int = 500
    ) throws -> [SequencedEntry] {
        try readUnisolated { db in
            try SequencedEntry.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT seq, clockSum, raw FROM entry WHERE conversationId = ? AND author = ? AND seq > ?
                        ORDER BY seq LIMIT ?
                        """),
                // Clamped: a seq from a peer's clock above what SQLite's INTEGER holds would trap.
                arguments: [conversation.bytes, author.bytes, min(seq, Limits.maxSeq), limit])
        }
    }

    /// The same entries' bytes alone.
    public func entries(
        in conversation: ConversationID, author: NodeID, after seq: UInt64, limit: Int = 500
    ) throws -> [[UInt8]] {
        try sequencedEntries(in: conversation, author: author, after: seq, limit: limit).map(\.raw)
    }
}
