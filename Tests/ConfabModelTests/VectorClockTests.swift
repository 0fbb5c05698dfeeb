import ConfabModel
import ConfabTestSupport
import Foundation
import Testing

@Suite("VectorClock")
struct VectorClockTests {
    static let seeds: [UInt64] = [1, 2, 3, 5, 8, 13, 21, 34]
    static let casesPerSeed = 80

    /// Runs `body` on many random triples; the seed is the test argument so a failing case
    /// can be replayed.
    private func forRandomTriples(seed: UInt64, _ body: (VectorClock, VectorClock, VectorClock) -> Void) {
        var rng = SplitMix64(seed: seed)
        for _ in 0..<Self.casesPerSeed {
            body(randomClock(using: &rng), randomClock(using: &rng), randomClock(using: &rng))
        }
    }

    @Test("merge is commutative", arguments: seeds)
    func mergeCommutative(seed: UInt64) {
        forRandomTriples(seed: seed) { a, b, _ in
            #expect(a.merging(b) == b.merging(a))
        }
    }

    @Test("merge is associative", arguments: seeds)
    func mergeAssociative(seed: UInt64) {
        forRandomTriples(seed: seed) { a, b, c in
            #expect(a.merging(b).merging(c) == a.merging(b.merging(c)))
        }
    }

    @Test("merge is idempotent and has the empty clock as identity", arguments: seeds)
    func mergeIdempotent(seed: UInt64) {
        forRandomTriples(seed: seed) { a, b, _ in
            #expect(a.merging(a) == a)
            #expect(a.merging(VectorClock()) == a)
            let ab = a.merging(b)
            #expect(ab.merging(b) == ab)
        }
    }

    @Test("merge is the pointwise maximum", arguments: seeds)
    func mergePointwiseMax(seed: UInt64) {
        forRandomTriples(seed: seed) { a, b, _ in
            let m = a.merging(b)
            for author in clockAuthors {
                #expect(m[author] == max(a[author], b[author]))
            }
            var mutated = a
            mutated.merge(b)
            #expect(mutated == m)
        }
    }

    @Test("covers agrees with merge", arguments: seeds)
    func coversIffMergeIsNoop(seed: UInt64) {
        forRandomTriples(seed: seed) { a, b, _ in
            #expect(a.covers(b) == (a.merging(b) == a))
            #expect(a.merging(b).covers(a))
            #expect(a.merging(b).covers(b))
        }
    }

    @Test("compare is consistent with covers and antisymmetric", arguments: seeds)
    func compareConsistent(seed: UInt64) {
        forRandomTriples(seed: seed) { a, b, _ in
            let order = a.compare(b)
            switch order {
            case .equal:
                #expect(a == b)
            case .after:
                #expect(a.covers(b) && a != b)
            case .before:
                #expect(b.covers(a) && a != b)
            case .concurrent:
                #expect(!a.covers(b) && !b.covers(a))
            }
            let mirrored: ClockOrder
            switch order {
            case .before: mirrored = .after
            case .after: mirrored = .before
            case .equal, .concurrent: mirrored = order
            }
            #expect(b.compare(a) == mirrored)
            #expect((a == b) == (order == .equal))
        }
    }

    @Test("sum is monotone under merge and strictly grows along causality", arguments: seeds)
    func sumMonotone(seed: UInt64) {
        forRandomTriples(seed: seed) { a, b, _ in
            let m = a.merging(b)
            #expect(m.sum >= a.sum)
            #expect(m.sum >= b.sum)
            #expect(m.sum <= a.sum + b.sum)
            if a.compare(b) == .after { #expect(a.sum > b.sum) }
            if a.compare(b) == .equal { #expect(a.sum == b.sum) }
        }
    }

    /// The laws above would hold vacuously if the generator only ever produced, say,
    /// concurrent pairs; make sure every relation actually occurs.
    @Test func generatorCoversEveryRelation() {
        var rng = SplitMix64(seed: 99)
        var seen = Set<String>()
        for _ in 0..<400 {
            seen.insert("\(randomClock(using: &rng).compare(randomClock(using: &rng)))")
        }
        #expect(seen == ["before", "after", "equal", "concurrent"])
    }

    @Test func zeroEntriesAreAbsent() {
        let a = nodeID(1)
        let b = nodeID(2)
        #expect(VectorClock([a: 0, b: 2]) == VectorClock([b: 2]))
        #expect(VectorClock([a: 0]).isEmpty)
        var clock = VectorClock([a: 3, b: 1])
        clock[a] = 0
        #expect(clock == VectorClock([b: 1]))
        #expect(clock.width == 1)
        #expect(clock[a] == 0)
        #expect(VectorClock().covers(VectorClock([a: 0])))
    }

    @Test func coversAuthorSeq() {
        let clock = VectorClock([nodeID(1): 4])
        #expect(clock.covers(author: nodeID(1), seq: 4))
        #expect(!clock.covers(author: nodeID(1), seq: 5))
        #expect(!clock.covers(author: nodeID(2), seq: 1))
        #expect(clock.covers(author: nodeID(2), seq: 0))
    }

    @Test func sumAndSortedEntries() {
        let clock = VectorClock([nodeID(9): 2, nodeID(3): 5, nodeID(7): 1])
        #expect(clock.sum == 8)
        #expect(clock.sortedEntries.map(\.author) == [nodeID(3), nodeID(7), nodeID(9)])
        #expect(clock.sortedEntries.map(\.seq) == [5, 1, 2])
    }

    @Test func jsonRoundTrip() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<50 {
            let clock = randomClock(using: &rng)
            let data = try JSONEncoder().encode(clock)
            #expect(try JSONDecoder().decode(VectorClock.self, from: data) == clock)
        }
    }

    @Test func jsonShapeIsHexKeyedObject() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(VectorClock([nodeID(0xab): 3])), as: UTF8.self)
        #expect(json == "{\"\(String(repeating: "ab", count: 32))\":3}")
        #expect(String(decoding: try encoder.encode(VectorClock()), as: UTF8.self) == "{}")
    }

    @Test(arguments: [
        "{\"zz\":1}",
        "{\"\(String(repeating: "ab", count: 31))\":1}",
        "[1,2]",
        "{\"\(String(repeating: "ab", count: 32))\":-1}",
    ])
    func jsonRejectsBadInput(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(VectorClock.self, from: Data(json.utf8))
        }
    }

    @Test func jsonDropsZeroSeqs() throws {
        let json = "{\"\(String(repeating: "01", count: 32))\":0,\"\(String(repeating: "02", count: 32))\":4}"
        let clock = try JSONDecoder().decode(VectorClock.self, from: Data(json.utf8))
        #expect(clock == VectorClock([nodeID(2): 4]))
    }
}
