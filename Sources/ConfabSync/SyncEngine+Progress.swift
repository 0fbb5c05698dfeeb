import ConfabModel
import ConfabStore

extension SyncEngine {
    /// How many entries of one author a peer's clock may add to `outstandingEntries` beyond
    /// what this node holds. A clock is a claim nobody can check until the entries come,
    /// and one at the seq limit would otherwise show 2^48 entries still to receive.
    public static let maxOutstandingPerAuthor: UInt64 = 1 << 16

    /// Entries the connected peers announced that this store does not hold yet: what a
    /// sync still has to bring, for display (status, the chat's progress bar). Zero when in
    /// step with every peer. Only conversations shared with the peer count, and each
    /// author's claim at most `maxOutstandingPerAuthor` beyond what is held here: a peer
    /// can inflate the figure within that bound while its session lasts, and nothing else
    /// depends on it (Protocol.md §13, §15). The sum saturates instead of trapping.
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
                let claimed = min(seq - mine[author], Self.maxOutstandingPerAuthor)
                let (sum, overflow) = missing.addingReportingOverflow(claimed)
                missing = overflow ? .max : sum
            }
        }
        return Int(clamping: missing)
    }
}
