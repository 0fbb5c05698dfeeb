import ConfabClient
import ConfabModel
import Foundation
import Testing

@testable import ConfabNode

/// Who is online, in virtual time: the table takes the time as a parameter.
@Suite struct PresenceTableTests {
    let bob = NodeID(bytes: [UInt8](repeating: 2, count: 32))!
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func aBeaconMakesAPeerOnlineUntilItFallsSilent() {
        var table = PresenceTable()
        #expect(table.update(bob, known: nil, seen: true, now: start).map(isOnline) == true)
        #expect(table.expire(known: [:], now: start + 4).isEmpty)
        let expired = table.expire(known: [:], now: start + PresenceTable.offlineAfter)
        #expect(expired.map(isOnline) == [false])
        // Said once: a second expiry reports nothing new.
        #expect(table.expire(known: [:], now: start + 60).isEmpty)
    }

    /// Idle nodes beacon every 30 s: a peer beaconing every 20 s stays online for three of
    /// its gaps, not 4.5 s.
    @Test func theTimeoutFollowsThePeersPace() {
        var table = PresenceTable()
        _ = table.update(bob, known: nil, seen: true, now: start)
        _ = table.update(bob, known: nil, seen: true, now: start + 20)
        #expect(table.offlineAfter(bob) == 60)
        let early = table.expire(known: [:], now: start + 20 + 59)
        #expect(early.isEmpty)
        let late = table.expire(known: [:], now: start + 20 + 60)
        #expect(late.map(isOnline) == [false])
    }

    /// On a LAN of hundreds beacons come up to 94 s apart (75 s, ×1.25): such a peer
    /// stays online between them, and a missed beacon or two does not make it flicker.
    @Test func aPeerAtTheCrowdedPaceStaysOnline() {
        var table = PresenceTable()
        _ = table.update(bob, known: nil, seen: true, now: start)
        _ = table.update(bob, known: nil, seen: true, now: start + 94)
        #expect(table.expire(known: [:], now: start + 94 + 280).isEmpty)
        #expect(table.expire(known: [:], now: start + 94 + 282).map(isOnline) == [false])
    }

    @Test func theTimeoutIsBoundedBothWays() {
        var table = PresenceTable()
        _ = table.update(bob, known: nil, seen: true, now: start)
        _ = table.update(bob, known: nil, seen: true, now: start + 1)
        #expect(table.offlineAfter(bob) == PresenceTable.offlineAfter)
        _ = table.update(bob, known: nil, seen: true, now: start + 301)
        #expect(table.offlineAfter(bob) == PresenceTable.maxOfflineAfter)
    }

    /// A Bye saying "shutdown": the peer is gone, whatever its last beacon said.
    @Test func aPeerLeavingIsOfflineAtOnce() {
        var table = PresenceTable()
        _ = table.update(bob, known: nil, seen: true, now: start)
        _ = table.update(bob, known: nil, connected: true, now: start)
        let closed = table.update(bob, known: nil, connected: false, now: start + 1)
        #expect(closed == nil)
        let left = table.leaving(bob, known: nil, now: start + 1)
        #expect(left.map(isOnline) == false)
        let again = table.leaving(bob, known: nil, now: start + 2)
        #expect(again == nil)
    }

    @Test func aSessionKeepsAPeerOnlineWithoutBeacons() {
        var table = PresenceTable()
        _ = table.update(bob, known: nil, connected: true, address: "127.0.0.1:7461", now: start)
        #expect(table.expire(known: [:], now: start + 3600).isEmpty)
        #expect(table.onlineCount == 1)
        let closed = table.update(bob, known: nil, connected: false, now: start + 3600)
        #expect(closed.map(isOnline) == false)
    }

    @Test func namesAndTrustComeFromTheStoreNotTheNetwork() {
        var table = PresenceTable()
        var known = Peer(id: bob, name: "Bob", addedAt: start)
        known.trust = .verified
        _ = table.update(bob, known: nil, connected: true, now: start)
        table.helloReceived(
            bob, hello: .init(displayName: "bob", role: .relay, listenPort: 7461), address: "10.0.0.2:7461", name: nil)
        let snapshot = table.snapshot(known: [known])
        #expect(snapshot.count == 1)
        #expect(snapshot[0].name == "Bob" && snapshot[0].trust == .verified && snapshot[0].role == .relay)
        #expect(snapshot[0].address == "10.0.0.2:7461")
    }

    @Test func knownPeersShowOfflineAndStrangersOnlyWhilePresent() {
        var table = PresenceTable()
        let carol = NodeID(bytes: [UInt8](repeating: 3, count: 32))!
        _ = table.update(carol, known: nil, seen: true, now: start)
        let snapshot = table.snapshot(known: [Peer(id: bob, name: "bob", addedAt: start)])
        #expect(Set(snapshot.map(\.id)) == [bob, carol])
        #expect(snapshot.first { $0.id == bob }?.online == false)
    }

    @Test func theTableHoldsAtMostItsCapacityAndKeepsPeersWithSessions() {
        var table = PresenceTable()
        _ = table.update(bob, known: nil, connected: true, now: start)
        for i in 0..<(PresenceTable.capacity + 50) {
            var bytes = [UInt8](repeating: 0, count: 32)
            bytes[0] = UInt8(i & 0xff)
            bytes[1] = UInt8(i >> 8)
            bytes[2] = 1
            _ = table.update(NodeID(bytes: bytes)!, known: nil, seen: true, now: start + Double(i))
        }
        #expect(table.entries.count == PresenceTable.capacity)
        #expect(table.contains(bob))
    }

    private func isOnline(_ event: NodeEvent) -> Bool {
        if case .peerOnline = event { return true }
        return false
    }
}

/// Static peers are redialled 1 s, 2 s, 4 s … 30 s apart, and from 1 s again once connected.
@Suite struct BackoffTests {
    @Test func doublesToItsCeilingAndResets() {
        var backoff = Backoff()
        let waits = (0..<7).map { _ in backoff.next() }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        backoff.reset()
        #expect(backoff.next() == .seconds(1))
    }
}
