import ConfabClient
import ConfabCrypto
import ConfabModel
import Testing

@testable import ConfabNode

@Suite struct BeaconDialPolicyTests {
    let start = ContinuousClock.now
    func key() -> NodeID { NodeID(SigningKeyPair.generate().publicKey) }

    @Test func strangersShareASmallBudgetAndOneAddressIsDialledOnceInAWhile() {
        var policy = BeaconDialPolicy()
        // 2,000 fresh keys all naming one address: one dial.
        let allowed = (0..<2000).filter { _ in policy.mayDial(key(), at: "127.0.0.4:9100", known: false, now: start) }
        #expect(allowed.count == 1)
        // The key that got the address may come back to it, after its own backoff.
        var policy3 = BeaconDialPolicy()
        let peer = key()
        do {
            let allowed = policy3.mayDial(peer, at: "127.0.0.6:7461", known: false, now: start)
            #expect(allowed)
        }
        policy3.finished(peer, connected: false, now: start)
        do {
            let allowed = policy3.mayDial(key(), at: "127.0.0.6:7461", known: false, now: start + .seconds(3))
            #expect(!allowed)
        }
        do {
            let allowed = policy3.mayDial(peer, at: "127.0.0.6:7461", known: false, now: start + .seconds(3))
            #expect(allowed)
        }
        // Fresh keys at fresh addresses: the burst, then the rate.
        var policy2 = BeaconDialPolicy()
        var count = 0
        for i in 0..<100 {
            let k = key()
            if policy2.mayDial(k, at: "127.0.0.5:\(i)", known: false, now: start) {
                count += 1
                policy2.finished(k, connected: false, now: start)
            }
        }
        #expect(count == Int(BeaconDialPolicy.unknownBurst))
        do {
            let allowed = policy2.mayDial(key(), at: "127.0.0.5:999", known: false, now: start + .seconds(1))
            #expect(allowed)
        }
    }

    @Test func atMostEightInFlightAndAFailedKeyBacksOff() {
        var policy = BeaconDialPolicy()
        let keys = (0..<20).map { _ in key() }
        let started = keys.filter { policy.mayDial($0, at: "h:\($0.shortHex)", known: true, now: start) }
        #expect(started.count == BeaconDialPolicy.maxInFlight)
        policy.finished(started[0], connected: false, now: start)
        do {
            let allowed = policy.mayDial(started[0], at: "h", known: true, now: start + .seconds(1))
            #expect(!allowed)
        }
        do {
            let allowed = policy.mayDial(started[0], at: "h", known: true, now: start + .seconds(3))
            #expect(allowed)
        }
        policy.finished(started[0], connected: false, now: start + .seconds(3))
        // Doubled: 4 s now.
        do {
            let allowed = policy.mayDial(started[0], at: "h", known: true, now: start + .seconds(6))
            #expect(!allowed)
        }
        do {
            let allowed = policy.mayDial(started[0], at: "h", known: true, now: start + .seconds(8))
            #expect(allowed)
        }
        policy.finished(started[0], connected: true, now: start + .seconds(8))
        do {
            let allowed = policy.mayDial(started[0], at: "h", known: true, now: start + .seconds(8))
            #expect(allowed)
        }
    }
}
