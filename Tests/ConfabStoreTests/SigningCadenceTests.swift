import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore
@testable import ConfabWire

/// My entries written together are signed only where needed (Protocol.md §4.3): the last
/// one, and often enough that a run left unsigned and the signed entry above it always fit
/// in one `Entries` message.
@Suite struct SigningCadenceTests {
    /// Which of `sizes` (entries of one commit, in order) the cadence signs.
    private func signed(_ sizes: [Int]) -> [Int] {
        var cadence = SigningCadence()
        return sizes.indices.filter { cadence.signs(size: sizes[$0], last: $0 == sizes.count - 1) }
    }

    @Test func theLastEntryOfACommitIsAlwaysSigned() {
        #expect(signed([200]) == [0])
        #expect(signed([200, 200]) == [1])
        #expect(signed(Array(repeating: 200, count: 10)) == [9])
    }

    @Test func noMoreThanSixtyThreeInARowGoUnsigned() {
        #expect(signed(Array(repeating: 200, count: 200)) == [63, 127, 191, 199])
        let signedIndices = signed(Array(repeating: 100, count: 1000))
        let gaps = zip([-1] + signedIndices, signedIndices).map { $1 - $0 - 1 }
        #expect(gaps.allSatisfy { $0 <= Limits.maxUnsignedRun })
    }

    @Test func largeEntriesAreSignedBeforeTheRunReachesItsBytes() {
        // Thirty-kilobyte entries: six unsigned ones make 180 KiB, a seventh would pass 192.
        let sizes = Array(repeating: 30 * 1024, count: 20)
        let signedIndices = signed(sizes)
        var run = 0
        for index in sizes.indices {
            if signedIndices.contains(index) {
                #expect(run < Limits.maxUnsignedRunBytes)
                run = 0
            } else {
                run += sizes[index]
            }
        }
        #expect(signedIndices == [6, 13, 19])
    }

    /// What `send --lines` writes: the run's last entry and every 64th signed, the rest not;
    /// the whole run is taken by a peer on one signature, and an unsigned entry sent alone
    /// proves nothing and is refused.
    @Test func aBatchOfMyMessagesIsSignedAtItsTopsAndTakenOnOneSignature() throws {
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "first", now: at(1))
        let written = try alice.sendMessages((1...130).map { "line \($0)" }, to: id, now: at(2))
        #expect(written.filter { !EntryCodec.isUnsigned($0) }.map(\.seq) == [66, 130, 132])
        let raw = try alice.entries(in: id, author: Keys.alice.id, after: 0)

        let bob = try makeStore(Keys.bob)
        let results = try bob.append(batch: raw, now: at(3))
        #expect(results.allSatisfy { if case .success(.appended) = $0 { true } else { false } })
        #expect(bob.signatures.count == 1)
        #expect(try bob.history(id, limit: 200).compactMap(\.text) == ["first"] + (1...130).map { "line \($0)" })

        // Bob's node again, fresh, sent the run cut at an unsigned entry.
        let fresh = try makeStore(Keys.bob)
        _ = try fresh.append(batch: Array(raw[0...1]), now: at(3))
        #expect(throws: AppendRejection.self) { try fresh.append(raw[2], now: at(3)) }
        #expect(try fresh.clock(of: id) == VectorClock([Keys.alice.id: 2]))
    }
}
