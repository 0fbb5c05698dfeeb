import ConfabCrypto
import ConfabModel
import Testing

@testable import ConfabNode

/// A peer whose versions do not overlap ours is not dialled again until its beacons say
/// another version or an hour has passed; its news is said once per version.
@Suite struct IncompatiblePeersTests {
    @Test func aPeerIsAvoidedUntilItsVersionChangesOrAnHourPasses() {
        let peers = IncompatiblePeers()
        let bob = NodeID(SigningKeyPair.generate().publicKey)
        let start = ContinuousClock.now
        #expect(!peers.avoids(bob, now: start))
        #expect(peers.record(bob, version: 3, now: start))
        #expect(!peers.record(bob, version: 3, now: start + .seconds(5)))
        #expect(peers.avoids(bob, now: start + .seconds(10)))
        #expect(peers.avoids(bob, version: 3, now: start + .seconds(10)))
        #expect(!peers.avoids(bob, version: 4, now: start + .seconds(10)))
        #expect(!peers.avoids(bob, now: start + .seconds(11)))
        #expect(peers.record(bob, version: 3, now: start + .seconds(20)))
        #expect(peers.avoids(bob, now: start + .seconds(20) + IncompatiblePeers.backoff - .seconds(1)))
        #expect(!peers.avoids(bob, now: start + .seconds(20) + IncompatiblePeers.backoff))
        peers.record(bob, version: 3, now: start)
        peers.clear(bob)
        #expect(!peers.avoids(bob, now: start))
    }
}
