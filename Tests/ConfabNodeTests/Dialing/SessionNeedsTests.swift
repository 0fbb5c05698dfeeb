import ConfabCrypto
import ConfabModel
import Testing

@testable import ConfabNode

/// Sessions by need: the people a node shares conversations with are always dialled on
/// their beacons, relays too, strangers only while few of its sessions are with strangers;
/// a write's people are reached at once, at most every few seconds each.
@Suite struct SessionNeedsTests {
    static func key() -> NodeID { NodeID(SigningKeyPair.generate().publicKey) }

    @Test func strangersAreDialledOnlyWhileFewSessionsAreWithStrangers() {
        var needs = SessionNeeds()
        let colleague = Self.key()
        let stranger = Self.key()
        needs.update(wanted: [colleague])
        let full = SessionNeeds.strangerSessions
        #expect(needs.dialsOnBeacon(stranger, relay: false, strangerSessions: full - 1))
        #expect(!needs.dialsOnBeacon(stranger, relay: false, strangerSessions: full))
        #expect(needs.dialsOnBeacon(colleague, relay: false, strangerSessions: 60))
        #expect(needs.dialsOnBeacon(stranger, relay: true, strangerSessions: 60))
        #expect(needs.strangers(among: [colleague, stranger, Self.key()]) == 2)
    }

    @Test func aWritesPeopleAreReachedAtMostOncePerCooldown() {
        var needs = SessionNeeds()
        let bob = Self.key()
        let start = ContinuousClock.now
        let first = needs.mayReach(bob, now: start)
        let soonAfter = needs.mayReach(bob, now: start + .seconds(1))
        let later = needs.mayReach(bob, now: start + SessionNeeds.reachCooldown)
        #expect(first && !soonAfter && later)
    }

    /// A write in a large group dials only the members this node seeks anyway (Protocol.md
    /// §10.6, §19.6): up to 1,024 members, the tree carries it to the others. In any other
    /// conversation it dials every participant.
    @Test func aWriteInALargeGroupReachesOnlyTheMembersSoughtAnyway() {
        var needs = SessionNeeds()
        let (bob, carol, dave) = (Self.key(), Self.key(), Self.key())
        needs.update(wanted: [bob, dave])
        #expect(needs.toReach([bob, carol, dave], largeGroup: true) == [bob, dave])
        #expect(needs.toReach([bob, carol, dave], largeGroup: false) == [bob, carol, dave])
    }

    /// A beacon's address is a hint, replaced by the next beacon, and bounded in number.
    @Test func beaconHintsFollowTheLatestBeaconAndStayBounded() {
        var needs = SessionNeeds()
        let bob = Self.key()
        needs.heardBeacon(bob, at: HostPort(host: "10.0.0.2", port: 7461))
        needs.heardBeacon(bob, at: HostPort(host: "10.0.0.3", port: 7461))
        #expect(needs.hints[bob] == HostPort(host: "10.0.0.3", port: 7461))
        for index in 0..<(SessionNeeds.memory + 10) {
            needs.heardBeacon(Self.key(), at: HostPort(host: "10.0.\(index / 250).\(index % 250)", port: 7461))
        }
        #expect(needs.hints.count <= SessionNeeds.memory)
    }

    /// The lie: on the default network anyone can beacon "relay" for any number of made-up
    /// keys. That claim takes no slot there; on a private network only its key's holders
    /// can make it.
    @Test func aRelayClaimOnTheDefaultNetworkTakesNoSlot() {
        #expect(!SessionNeeds.countsAsRelay(role: .relay, privateNetwork: false))
        #expect(SessionNeeds.countsAsRelay(role: .relay, privateNetwork: true))
        #expect(!SessionNeeds.countsAsRelay(role: .person, privateNetwork: true))
    }
}
