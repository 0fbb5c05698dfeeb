import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// The vector clock of one conversation: each author's highest held seq.
    public func clock(of conversation: ConversationID) throws -> VectorClock {
        try writer.read { db in try self.clock(of: conversation, db: db) }
    }

    /// The clocks of every conversation held, for announcing to peers.
    public func allClocks() throws -> [ConversationID: VectorClock] {
        try writer.read { db in
            var clocks: [ConversationID: VectorClock] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT conversationId, author, seq FROM head") {
                clocks[row.conversationID("conversationId"), default: VectorClock()][row.nodeID("author")] = row["seq"]
            }
            return clocks
        }
    }

    func clock(of conversation: ConversationID, db: Database) throws -> VectorClock {
        var clock = VectorClock()
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT author, seq FROM head WHERE conversationId = ?"),
            arguments: [conversation.bytes])
        {
            clock[row.nodeID("author")] = row["seq"]
        }
        return clock
    }

    /// Raw entries of `author` in `conversation` after `seq`, in seq order, at most `limit`:
    /// what a peer whose clock says `seq` is missing.
    public func entries(
        in conversation: ConversationID, author: NodeID, after seq: UInt64, limit: Int = 500
    ) throws -> [[UInt8]] {
        try writer.read { db in
            try [UInt8].fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT raw FROM entry WHERE conversationId = ? AND author = ? AND seq > ?
                        ORDER BY seq LIMIT ?
                        """),
                // Clamped: a seq from a peer's clock above what SQLite's INTEGER holds would trap.
                arguments: [conversation.bytes, author.bytes, min(seq, Limits.maxSeq), limit])
        }
    }

    /// Records what another node announced it holds, and takes my entries it covers off the
    /// outbox (they are now "sent") — but only up to `sentUpTo`, what this node itself sent
    /// that peer: a clock is the peer's word, and a peer claiming entries it was never given
    /// must not empty the outbox (then a local delete would lose them for good).
    /// Returns how many of my entries left the outbox (became "sent").
    @discardableResult
    public func recordPeerClock(
        _ clock: VectorClock, peer: NodeID, conversation: ConversationID, sentUpTo: UInt64, now: Date = Date()
    ) throws -> Int {
        try writer.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO peer_clock(peerId, conversationId, clock, updatedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT(peerId, conversationId) DO UPDATE SET clock = excluded.clock, updatedAt = excluded.updatedAt
                    """
            ).execute(arguments: [peer.bytes, conversation.bytes, clock.json, now.millisecondsSince1970])
            let acknowledged = min(clock[self.me], sentUpTo, Limits.maxSeq)
            guard acknowledged > 0 else { return 0 }
            try db.cachedStatement(
                sql: "DELETE FROM outbox WHERE conversationId = ? AND author = ? AND seq <= ?"
            ).execute(arguments: [conversation.bytes, self.me.bytes, acknowledged])
            return db.changesCount
        }
    }

    /// The lowest seq of mine in `conversation` that no node has been seen to take.
    public func firstUnsentSeq(in conversation: ConversationID) throws -> UInt64? {
        try writer.read { db in
            try UInt64.fetchOne(
                db.cachedStatement(sql: "SELECT MIN(seq) FROM outbox WHERE conversationId = ? AND author = ?"),
                arguments: [conversation.bytes, self.me.bytes])
        }
    }

    /// My entries no other node has acknowledged, oldest first.
    /// How many of my entries no other node holds yet (status polls this; the list can be
    /// long after a week offline).
    public func outboxCount() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0 }
    }

    public func outbox() throws -> [(conversation: ConversationID, seq: UInt64, queuedAt: Date)] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT conversationId, seq, queuedAt FROM outbox ORDER BY queuedAt, seq").map {
                (
                    conversation: $0.conversationID("conversationId"), seq: $0["seq"],
                    queuedAt: Date(milliseconds: $0["queuedAt"])
                )
            }
        }
    }
}

extension ConfabStore {
    /// The clocks to announce to a peer: conversations it takes part in, or every
    /// conversation held when the peer is a relay.
    public func clocks(sharedWith peer: NodeID, everything: Bool = false) throws -> [ConversationID: VectorClock] {
        try writer.read { db in
            let sql =
                everything
                ? "SELECT h.conversationId, h.author, h.seq FROM head h"
                : """
                SELECT h.conversationId, h.author, h.seq FROM head h
                JOIN participant p ON p.conversationId = h.conversationId AND p.nodeId = ?
                """
            let arguments: StatementArguments = everything ? [] : [peer.bytes]
            var clocks: [ConversationID: VectorClock] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments) {
                clocks[row.conversationID("conversationId"), default: VectorClock()][row.nodeID("author")] = row["seq"]
            }
            return clocks
        }
    }

    /// Participants in the creator's order (the creator first); empty when the
    /// conversation is not held.
    public func participants(of conversation: ConversationID) throws -> [NodeID] {
        try writer.read { db in try NodeID.fetchParticipants(db, conversation: conversation) }
    }

    public func creator(of conversation: ConversationID) throws -> NodeID? {
        try writer.read { db in
            try [UInt8].fetchOne(
                db.cachedStatement(sql: "SELECT creator FROM conversation WHERE id = ?"),
                arguments: [conversation.bytes]
            ).flatMap(NodeID.init(bytes:))
        }
    }
}

extension ConfabStore {
    /// Like `entries(in:author:after:limit:)`, with each entry's seq and clock sum (the
    /// sender merges authors by it, so what an entry depends on goes first): entries
    /// deleted here leave holes a sender must not paper over.
    public func sequencedEntries(
        in conversation: ConversationID, author: NodeID, after seq: UInt64, limit: Int
    ) throws -> [(seq: UInt64, clockSum: UInt64, raw: [UInt8])] {
        try writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT seq, clockSum, raw FROM entry WHERE conversationId = ? AND author = ? AND seq > ?
                        ORDER BY seq LIMIT ?
                        """),
                arguments: [conversation.bytes, author.bytes, min(seq, Limits.maxSeq), limit]
            ).map { (seq: $0["seq"], clockSum: $0["clockSum"], raw: $0["raw"]) }
        }
    }
}
