import NIOCore
import Testing

@testable import ConfabNet

/// Where beacons go, decided on made-up interfaces: the rules of Protocol.md §11.3.
@Suite("Beacon plan")
struct BeaconPlanTests {
    static func v4(_ dotted: String, prefix: Int, broadcast: String? = nil) -> NetworkInterface.IPv4 {
        func parse(_ text: String) -> UInt32 {
            text.split(separator: ".").reduce(UInt32(0)) { $0 << 8 | UInt32($1)! }
        }
        let mask: UInt32 = prefix == 0 ? 0 : ~UInt32(0) << (32 - prefix)
        return .init(address: parse(dotted), netmask: mask, broadcast: broadcast.map(parse))
    }

    static let linkLocal = NetworkInterface.IPv6(
        bytes: [0xfe, 0x80] + Array(repeating: 0, count: 13) + [7], prefixLength: 64)
    static let global = NetworkInterface.IPv6(
        bytes: [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [7], prefixLength: 64)

    func targets(_ interfaces: [NetworkInterface]) -> [String] {
        BeaconPlan.make(interfaces: interfaces, port: 7460).targets.map(\.description)
    }

    @Test func theReportedBroadcastAddressIsUsed() {
        let eth0 = NetworkInterface(
            name: "eth0", index: 2, ipv4: [Self.v4("10.0.0.5", prefix: 24, broadcast: "10.0.0.255")])
        #expect(targets([eth0]) == ["10.0.0.255:7460 on eth0"])
    }

    /// `ip addr add 10.77.0.1/24 dev eth0`: no broadcast address, or the kernel reporting the
    /// interface's own address in its place. Beaconing to it found nobody.
    @Test func withoutABroadcastAddressTheNetmaskGivesIt() {
        let none = NetworkInterface(name: "eth0", index: 2, ipv4: [Self.v4("10.77.0.1", prefix: 24)])
        let own = NetworkInterface(
            name: "eth1", index: 3, ipv4: [Self.v4("10.78.0.1", prefix: 20, broadcast: "10.78.0.1")])
        #expect(targets([none, own]) == ["10.77.0.255:7460 on eth0", "10.78.15.255:7460 on eth1"])
    }

    @Test func slash31And32HaveNoBroadcastAndSaySo() {
        let p2p = NetworkInterface(name: "eth0", index: 2, ipv4: [Self.v4("10.0.0.0", prefix: 31)])
        let host = NetworkInterface(name: "eth1", index: 3, ipv4: [Self.v4("10.0.0.9", prefix: 32)])
        let plan = BeaconPlan.make(interfaces: [p2p, host], port: 7460)
        #expect(plan.targets.isEmpty)
        #expect(plan.skipped.map(\.interface) == ["eth0", "eth1"])
        #expect(plan.skipped.allSatisfy { $0.reason.contains("no broadcast address") })
    }

    @Test func loopbackDownAndPointToPointAreNeverTargets() {
        let lo = NetworkInterface(
            name: "lo", index: 1, isLoopback: true, ipv4: [Self.v4("127.0.0.1", prefix: 8)], ipv6: [Self.linkLocal])
        let down = NetworkInterface(name: "eth0", index: 2, isUp: false, ipv4: [Self.v4("10.0.0.5", prefix: 24)])
        let tunnel = NetworkInterface(
            name: "tun0", index: 3, isPointToPoint: true, ipv4: [Self.v4("10.8.0.2", prefix: 24)])
        let plan = BeaconPlan.make(interfaces: [lo, down, tunnel], port: 7460)
        #expect(plan.targets.isEmpty)
        #expect(plan.skipped.map(\.interface) == ["tun0"])
    }

    /// IPv6: the link-local group once per interface with a link-local address, scoped to
    /// it; a global address alone is not enough (link-local is what a LAN always has).
    @Test func ipv6GetsTheGroupOncePerLinkLocalInterface() throws {
        let eth0 = NetworkInterface(name: "eth0", index: 2, ipv6: [Self.linkLocal, Self.global])
        let wlan0 = NetworkInterface(
            name: "wlan0", index: 5, ipv4: [Self.v4("192.168.1.20", prefix: 24)], ipv6: [Self.linkLocal])
        let onlyGlobal = NetworkInterface(name: "eth2", index: 7, ipv6: [Self.global])
        let plan = BeaconPlan.make(interfaces: [eth0, wlan0, onlyGlobal], port: 7460)
        #expect(
            plan.targets.map(\.description) == [
                "[ff12::7460%eth0]:7460", "192.168.1.255:7460 on wlan0", "[ff12::7460%wlan0]:7460",
            ])
        let scopes = plan.targets.compactMap { target -> UInt32? in
            guard case .v6(let address) = target.address else { return nil }
            return address.address.sin6_scope_id
        }
        #expect(scopes == [2, 5])
        #expect(plan.skipped.map(\.interface) == ["eth2"])
    }

    @Test func twoAddressesOnOneSubnetGiveOneTarget() {
        let eth0 = NetworkInterface(
            name: "eth0", index: 2, ipv4: [Self.v4("10.0.0.5", prefix: 24), Self.v4("10.0.0.6", prefix: 24)])
        #expect(targets([eth0]) == ["10.0.0.255:7460 on eth0"])
    }
}

/// The pace of beacons, step by step.
@Suite("Beacon schedule")
struct BeaconScheduleTests {
    @Test func fastAfterAStartThenDoublingUpToSlow() {
        var schedule = BeaconSchedule(fast: .seconds(1), slow: .seconds(10), fastPhase: .seconds(3))
        let waits = (0..<8).map { _ in schedule.next().nanoseconds / 1_000_000_000 }
        #expect(waits == [1, 1, 1, 2, 4, 8, 10, 10])
    }

    @Test func aChangeMakesItFastAgain() {
        var schedule = BeaconSchedule.standard
        for _ in 0..<20 { _ = schedule.next() }
        #expect(schedule.next() == .seconds(30))
        schedule.restart()
        #expect(schedule.next() == .milliseconds(1500))
    }

    /// On a LAN of many keys the slow pace stretches so that the LAN carries about three
    /// beacons a second in all: 30 s up to 89 other keys, 67 s at 199, and never past 75 s,
    /// however many keys (made-up ones included) are heard.
    @Test func aCrowdedLANStretchesTheSlowPaceUpToItsBound() {
        let standard = BeaconSchedule.standard
        #expect(standard.slowPace(keysHeard: 0) == .seconds(30))
        #expect(standard.slowPace(keysHeard: 89) == .seconds(30))
        #expect(standard.slowPace(keysHeard: 199) == .nanoseconds(66_666_666_666))
        #expect(standard.slowPace(keysHeard: 4096) == .seconds(75))
        #expect(standard.slowPace(keysHeard: -5) == .seconds(30))

        var schedule = BeaconSchedule.standard
        let waits = (0..<20).map { _ in schedule.next(keysHeard: 199) }
        // Fast for 15 s, then doubling: 3, 6, 12, 24, 48 s, then the crowded pace.
        #expect(waits.prefix(10) == ArraySlice(repeating: .milliseconds(1500), count: 10))
        #expect(waits[10...14] == [.seconds(3), .seconds(6), .seconds(12), .seconds(24), .seconds(48)])
        #expect(waits.last == .nanoseconds(66_666_666_666))
        // Fewer keys heard: back to the plain slow pace at the next wait.
        #expect(schedule.next(keysHeard: 3) == .seconds(30))
    }

    /// A schedule made without a crowded bound (tests' fixed paces) keeps its slow pace.
    @Test func aScheduleWithoutACrowdedBoundKeepsItsPace() {
        var schedule = BeaconSchedule(fast: .seconds(1), slow: .seconds(10), fastPhase: .zero)
        #expect((0..<5).map { _ in schedule.next(keysHeard: 10_000) }.last == .seconds(10))
    }

    @Test func constantNeverChanges() {
        var schedule = BeaconSchedule.constant(.milliseconds(100))
        #expect((0..<10).map { _ in schedule.next() } == Array(repeating: .milliseconds(100), count: 10))
    }
}
