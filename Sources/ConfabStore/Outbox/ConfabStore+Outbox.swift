import ConfabModel
import Foundation
import GRDB

/// The outbox: my entries that no other node is known to hold. An entry leaves it when a
/// peer acknowledges what this node sent it (`recordPeerClock`) or a participant's signed
/// receipt covers it (`mergeReceipt`); until then its status is "sending", and a local
/// delete keeps it so that my log still reaches the others without a gap.
extension ConfabStore {
    /// How many of my entries no other node holds yet (status polls this; the list can be
    /// long after a week offline).
    public func outboxCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0 }
    }

    /// My entries no other node holds yet, oldest first.
    public func outbox() throws -> [(conversation: ConversationID, seq: UInt64, queuedAt: Date)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT conversationId, seq, queuedAt FROM outbox ORDER BY queuedAt, seq").map {
                (
                    conversation: $0.conversationID("conversationId"), seq: $0["seq"],
                    queuedAt: Date(milliseconds: $0["queuedAt"])
                )
            }
        }
    }

    /// Each conversation's highest seq of mine still in the outbox: what a running node
    /// compares, when another process committed, with what it read before, to offer the
    /// conversations that process wrote to and no other. Whatever another process writes of
    /// mine enters the outbox, and only a node takes it out once a peer holds it; the other
    /// things it writes (a flag, a read mark, the chat's last open conversation) leave it
    /// alone. One pass over the outbox in its key's order, which is as long as what waits
    /// to be sent, however many conversations the store holds.
    public func outboxHeads() throws -> [ConversationID: UInt64] {
        try read { db in
            var heads: [ConversationID: UInt64] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT conversationId, MAX(seq) AS seq FROM outbox WHERE author = ? GROUP BY conversationId",
                arguments: [me.bytes])
            while let row = try rows.next() { heads[row.conversationID("conversationId")] = row["seq"] }
            return heads
        }
    }

    /// The lowest seq of mine in `conversation` that no node has been seen to take.
    public func firstUnsentSeq(in conversation: ConversationID) throws -> UInt64? {
        try readUnisolated { db in
            try UInt64.fetchOne(
                db.cachedStatement(sql: "SELECT MIN(seq) FROM outbox WHERE conversationId = ? AND author = ?"),
                arguments: [conversation.bytes, self.me.bytes])
        }
    }

    /// The seqs of mine in `conversation` still waiting, for delivery statuses.
    func unsentSeqs(in conversation: ConversationID, db: Database) throws -> Set<UInt64> {
        Set(
            try UInt64.fetchAll(
                db.cachedStatement(sql: "SELECT seq FROM outbox WHERE conversationId = ? AND author = ?"),
                arguments: [conversation.bytes, me.bytes]))
    }

    func addToOutbox(_ entry: Entry, db: Database, now: Date) throws {
        try db.cachedStatement(
            sql: "INSERT INTO outbox(conversationId, author, seq, queuedAt) VALUES (?, ?, ?, ?)"
        ).insertRow([
            .blob(entry.conversationID.bytes), .blob(me.bytes), .integer(entry.seq),
            .integer(now.millisecondsSince1970),
        ])
    }

    /// Takes my entries of `conversation` up to `seq` off the outbox; returns how many left.
    @discardableResult
    func removeFromOutbox(_ conversation: ConversationID, upTo seq: UInt64, db: Database) throws -> Int {
        guard seq > 0 else { return 0 }
        try db.cachedStatement(
            sql: "DELETE FROM outbox WHERE conversationId = ? AND author = ? AND seq <= ?"
        ).execute(arguments: [conversation.bytes, me.bytes, min(seq, Limits.maxSeq)])
        return db.changesCount
    }
}
