import ConfabModel
import ConfabStore

extension SyncEngine {
    /// Entries the connected peers announced that this store does not hold yet: what a
    /// sync still has to bring. Zero when in step with every peer.
    public func outstandingEntries() throws -> Int {
        var announced: [ConversationID: VectorClock] = [:]
        for state in peers.values {
            for (conversation, clock) in state.theirs {
                announced[conversation, default: VectorClock()].merge(clock)
            }
        }
        guard !announced.isEmpty else { return 0 }
        let held = try store.allClocks()
        var missing: UInt64 = 0
        for (conversation, clock) in announced {
            let mine = held[conversation] ?? VectorClock()
            for (author, seq) in clock.sortedEntries where seq > mine[author] {
                missing += seq - mine[author]
            }
        }
        return Int(clamping: missing)
    }
}
