import ConfabModel
import ConfabTestSupport
import Testing

/// One entry of a simulated conversation: what ordering needs, nothing more.
private struct SimulatedEntry {
    let author: NodeID
    let seq: UInt64
    let clock: VectorClock
    let timestamp: Int64

    var key: DisplayOrderKey {
        DisplayOrderKey(clockSum: clock.sum, timestamp: timestamp, author: author, seq: seq)
    }
}

/// A random conversation: several authors append entries stamped with the clock they hold,
/// and now and then one node syncs everything it holds to another. A full sync keeps every
/// node's holdings causally closed, which is what the replication protocol delivers.
/// Timestamps are drawn from a tiny range so they tie and run against causality, as skewed
/// wall clocks do.
private func simulateHistory(seed: UInt64) -> [SimulatedEntry] {
    var rng = SplitMix64(seed: seed)
    let authors = (0..<Int.random(in: 2...5, using: &rng)).map { _ in NodeID(bytes: rng.bytes(NodeID.length))! }
    var held = [VectorClock](repeating: VectorClock(), count: authors.count)
    var entries: [SimulatedEntry] = []
    for _ in 0..<Int.random(in: 10...60, using: &rng) {
        if Int.random(in: 0..<10, using: &rng) < 6 {
            let i = Int.random(in: 0..<authors.count, using: &rng)
            let seq = held[i][authors[i]] + 1
            entries.append(
                SimulatedEntry(
                    author: authors[i], seq: seq, clock: held[i], timestamp: Int64.random(in: 0...5, using: &rng)))
            held[i][authors[i]] = seq
        } else {
            let from = Int.random(in: 0..<authors.count, using: &rng)
            let to = Int.random(in: 0..<authors.count, using: &rng)
            held[to].merge(held[from])
        }
    }
    return entries
}

@Suite("Display order")
struct DisplayOrderTests {
    static let seeds: [UInt64] = Array(1...300)

    @Test("sorted order is a linear extension of causality", arguments: seeds)
    func linearExtension(seed: UInt64) {
        let entries = simulateHistory(seed: seed)
        let sorted = entries.map(\.key).sorted()
        var position: [DisplayOrderKey: Int] = [:]
        for (index, key) in sorted.enumerated() { position[key] = index }
        for a in entries {
            for b in entries where a.clock.covers(author: b.author, seq: b.seq) {
                #expect(
                    position[b.key]! < position[a.key]!,
                    "seed \(seed): \(b.author.shortHex)#\(b.seq) must precede \(a.author.shortHex)#\(a.seq)")
            }
        }
    }

    @Test("order does not depend on the order entries arrive in", arguments: seeds.prefix(100))
    func permutationInvariant(seed: UInt64) {
        let keys = simulateHistory(seed: seed).map(\.key)
        let reference = keys.sorted()
        var rng = SplitMix64(seed: seed &* 31)
        for _ in 0..<5 {
            #expect(keys.shuffled(using: &rng).sorted() == reference)
        }
    }

    /// Guards against a generator too tame to test anything: the histories must contain
    /// causal links between different authors, and links whose wall clocks run backwards,
    /// which ordering by timestamp alone would get wrong.
    @Test func historiesExerciseCausalityAndSkew() {
        var crossAuthor = 0
        var backwardsTimestamps = 0
        for seed in Self.seeds.prefix(50) {
            let entries = simulateHistory(seed: seed)
            for a in entries {
                for b in entries where a.author != b.author && a.clock.covers(author: b.author, seq: b.seq) {
                    crossAuthor += 1
                    if a.timestamp < b.timestamp { backwardsTimestamps += 1 }
                }
            }
        }
        #expect(crossAuthor > 100)
        #expect(backwardsTimestamps > 10)
    }

    @Test func keyComparesClockSumThenTimestampThenAuthorThenSeq() {
        let low = nodeID(1)
        let high = nodeID(2)
        func key(_ sum: UInt64, _ time: Int64, _ author: NodeID, _ seq: UInt64) -> DisplayOrderKey {
            DisplayOrderKey(clockSum: sum, timestamp: time, author: author, seq: seq)
        }
        #expect(key(1, 999, high, 9) < key(2, 0, low, 1))
        #expect(key(5, 10, high, 9) < key(5, 11, low, 1))
        #expect(key(5, 10, low, 9) < key(5, 10, high, 1))
        #expect(key(5, 10, low, 1) < key(5, 10, low, 2))
        #expect(!(key(5, 10, low, 1) < key(5, 10, low, 1)))
    }
}
