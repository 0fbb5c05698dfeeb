import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
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
            return try self.removeFromOutbox(conversation, upTo: min(clock[self.me], sentUpTo), db: db)
        }
    }
}
