import ConfabModel
import ConfabStore

extension SyncEngine {
    /// Entries the connected peers announced that this store does not hold yet: what a
    /// sync still has to bring. Zero when in step with every peer. Peers' claims can be
    /// anything up to 2^48 per author, so the sum saturates instead of trapping.
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
                let (sum, overflow) = missing.addingReportingOverflow(seq - mine[author])
                missing = overflow ? .max : sum
            }
        }
        return Int(clamping: missing)
    }
}
