import ConfabClient
import ConfabModel
import Testing

@testable import ConfabNode

/// When a node answers a beacon with its own, in virtual time.
@Suite struct BeaconAnswerPolicyTests {
    let start = ContinuousClock.now
    func key(_ byte: UInt8) -> NodeID { NodeID(bytes: [UInt8](repeating: byte, count: 32))! }

    @Test func aNewcomerIsAnsweredOnceAndAgainOnlyAfterThirtySeconds() {
        var policy = BeaconAnswerPolicy()
        let answers = [0, 5, 29, 30].map { policy.shouldAnswer(key(1), now: start + .seconds($0)) }
        #expect(answers == [true, false, false, true])
    }

    /// A flood of beacons from fresh keys makes this node beacon once a second, no more.
    @Test func aFloodOfFreshKeysIsAnsweredOnceASecond() {
        var policy = BeaconAnswerPolicy()
        var answers = 0
        for i in 0..<1000 {
            let now = start + .milliseconds(10 * i)
            let fresh = NodeID(bytes: [UInt8(i & 0xff), UInt8(i >> 8)] + [UInt8](repeating: 9, count: 30))!
            if policy.shouldAnswer(fresh, now: now) { answers += 1 }
        }
        #expect(answers == 10)
    }
}
