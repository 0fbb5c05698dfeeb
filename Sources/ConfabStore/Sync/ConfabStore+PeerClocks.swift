import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// Takes my entries another node's clock covers off the outbox (they are now "sent") —
    /// but only up to `sentUpTo`, what this node itself sent that peer: a clock is the
    /// peer's word, and a peer claiming entries it was never given must not empty the
    /// outbox (then a local delete would lose them for good). The clock itself is not
    /// stored: clocks arrive with every acknowledgement, and a write per clock received is
    /// what a group cannot afford; nothing is written unless an entry leaves the outbox.
    /// Returns how many of my entries left the outbox (became "sent").
    @discardableResult
    public func recordPeerClock(
        _ clock: VectorClock, peer: NodeID, conversation: ConversationID, sentUpTo: UInt64, now: Date = Date()
    ) throws -> Int {
        let upTo = min(clock[me], sentUpTo, Limits.maxSeq)
        guard upTo > 0 else { return 0 }
        let waiting = try readUnisolated { db in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: "SELECT EXISTS(SELECT 1 FROM outbox WHERE conversationId = ? AND author = ? AND seq <= ?)"),
                arguments: [conversation.bytes, me.bytes, upTo]) ?? false
        }
        guard waiting else { return 0 }
        // Undone by a power loss, this only offers the peer entries again that it holds, and
        // it drops them as duplicates (Protocol.md §8.0): nothing to wait for fsync for.
        return try write(durable: false) { db in try self.removeFromOutbox(conversation, upTo: upTo, db: db) }
    }
}
