import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import ConfabWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import ConfabNet

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real UDP discovery, confined to loopback.
///
/// On Linux a socket bound to 127.0.0.1 never receives datagrams sent to the loopback
/// broadcast address 127.255.255.255 (broadcasts are delivered only to sockets bound to
/// the wildcard or to that broadcast address), and unicast to a SO_REUSEPORT group reaches
/// only one of its sockets. So the services here bind 127.255.255.255 itself: they then
/// receive loopback broadcasts, every socket of the group gets each one, and they still
/// send from 127.0.0.1. Nothing leaves the machine, and nothing from outside comes in.
@Suite("DiscoveryService", .timeLimit(.minutes(1)))
struct DiscoveryServiceTests {
    static let broadcastHost = "127.255.255.255"

    final class Heard: Sendable {
        private let log = NIOLockedValueBox<[(Beacon, SocketAddress)]>([])
        var all: [(Beacon, SocketAddress)] { log.withLockedValue { $0 } }
        var nodes: [NodeID] { all.map(\.0.node) }
        func append(_ beacon: Beacon, _ from: SocketAddress) { log.withLockedValue { $0.append((beacon, from)) } }
    }

    func service(
        _ keys: SigningKeyPair, port: Int, group: any EventLoopGroup, interval: TimeAmount = .milliseconds(100),
        tcpPort: UInt16 = 7461
    ) throws -> (DiscoveryService, Heard) {
        var configuration = DiscoveryConfiguration(
            identity: keys, networkKey: .default, tcpPort: tcpPort,
            targets: .fixed([try SocketAddress(ipAddress: Self.broadcastHost, port: port)]), logger: quietLogger())
        configuration.bindHost = Self.broadcastHost
        configuration.port = port
        configuration.ipv6 = false
        configuration.schedule = .constant(interval)
        let heard = Heard()
        let service = DiscoveryService(configuration: configuration, group: group) { heard.append($0, $1) }
        return (service, heard)
    }

    /// Sends datagrams to the loopback broadcast address from a socket of its own.
    func sender(group: any EventLoopGroup) async throws -> any Channel {
        try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_broadcast), value: 1)
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func send(_ bytes: [UInt8], via channel: any Channel, port: Int) async throws {
        let target = try SocketAddress(ipAddress: Self.broadcastHost, port: port)
        try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: bytes)))
    }

    @Test func twoServicesOnOnePortHearEachOtherAndNotThemselves() async throws {
        try await withEventLoopGroup { group in
            // Held until the test ends: the services bind it beside this socket.
            let reserved = try DiscoveryPort(host: Self.broadcastHost)
            defer { withExtendedLifetime(reserved) {} }
            let port = reserved.number
            let (alice, aliceHeard) = try service(Keys.alice, port: port, group: group, tcpPort: 1111)
            let (bob, bobHeard) = try service(Keys.bob, port: port, group: group, tcpPort: 2222)
            try await alice.start()
            try await bob.start()
            #expect(alice.localAddress?.port == port && bob.localAddress?.port == port)

            try await eventually("both heard") { aliceHeard.all.count >= 3 && bobHeard.all.count >= 3 }
            #expect(Set(aliceHeard.nodes) == [Keys.bob.id])
            #expect(Set(bobHeard.nodes) == [Keys.alice.id])
            #expect(aliceHeard.all.allSatisfy { $0.0.tcpPort == 2222 && $0.1.ipAddress == "127.0.0.1" })
            #expect(bobHeard.all.allSatisfy { $0.0.tcpPort == 1111 && $0.1.ipAddress == "127.0.0.1" })
            let timestamps = aliceHeard.all.map(\.0.timestamp)
            #expect(timestamps == timestamps.sorted() && Set(timestamps).count == timestamps.count)

            await alice.stop()
            await bob.stop()
        }
    }

    /// The control for the test above: the port really is shared only thanks to the
    /// options. (On Linux SO_REUSEADDR alone would already let UDP sockets share a port;
    /// SO_REUSEPORT is what BSD-derived systems need.)
    @Test func aSocketWithoutTheReuseOptionsCannotBindThePort() async throws {
        try await withEventLoopGroup { group in
            // Alice alone holds the port: she binds port 0 and says which she got.
            var configuration = DiscoveryConfiguration(
                identity: Keys.alice, networkKey: .default, tcpPort: 7461, targets: .fixed([]), logger: quietLogger())
            configuration.bindHost = Self.broadcastHost
            configuration.port = 0
            configuration.ipv6 = false
            let alice = DiscoveryService(configuration: configuration, group: group) { _, _ in }
            try await alice.start()
            let port = try #require(alice.localAddress?.port)
            await #expect(throws: (any Error).self) {
                let plain = try await DatagramBootstrap(group: group)
                    .bind(host: Self.broadcastHost, port: port).get()
                try await plain.close()
            }
            await alice.stop()
        }
    }

    @Test func foreignForgedAndReplayedBeaconsAreIgnored() async throws {
        try await withEventLoopGroup { group in
            // Held until the test ends: the services bind it beside this socket.
            let reserved = try DiscoveryPort(host: Self.broadcastHost)
            defer { withExtendedLifetime(reserved) {} }
            let port = reserved.number
            // A long interval: Alice's own beacons play no part here.
            let (alice, heard) = try service(Keys.alice, port: port, group: group, interval: .seconds(30))
            try await alice.start()
            let mallory = try await sender(group: group)

            func beacon(_ keys: SigningKeyPair, _ timestamp: Int64, network: NetworkKey = .default) -> [UInt8] {
                BeaconCodec.encode(
                    Beacon(node: keys.id, tcpPort: 7461, role: .person, timestamp: timestamp), signedBy: keys,
                    networkKey: network)
            }
            var forged = beacon(Keys.bob, 50)
            forged[forged.count - 3] ^= 0x10

            try await send(beacon(Keys.carol, 10, network: .random()), via: mallory, port: port)  // other network
            try await send(forged, via: mallory, port: port)  // bad signature
            try await send(Array("not a beacon".utf8), via: mallory, port: port)
            try await send(beacon(Keys.alice, Int64.max - 1), via: mallory, port: port)  // "from" Alice herself
            let genuine = beacon(Keys.bob, 100)
            try await send(genuine, via: mallory, port: port)
            try await send(genuine, via: mallory, port: port)  // replay
            try await send(beacon(Keys.bob, 99), via: mallory, port: port)  // older
            try await send(beacon(Keys.carol, 5), via: mallory, port: port)  // sentinel: everything before is in

            try await eventually("sentinel") { heard.nodes.contains(Keys.carol.id) }
            #expect(
                heard.all.map { "\($0.0.node.shortHex)@\($0.0.timestamp)" } == [
                    "\(Keys.bob.id.shortHex)@100", "\(Keys.carol.id.shortHex)@5",
                ])
            try await mallory.close()
            await alice.stop()
        }
    }

    @Test func announceNowSendsAtOnce() async throws {
        try await withEventLoopGroup { group in
            // Held until the test ends: the services bind it beside this socket.
            let reserved = try DiscoveryPort(host: Self.broadcastHost)
            defer { withExtendedLifetime(reserved) {} }
            let port = reserved.number
            let (alice, aliceHeard) = try service(Keys.alice, port: port, group: group, interval: .seconds(30))
            let (bob, _) = try service(Keys.bob, port: port, group: group, interval: .seconds(30))
            try await alice.start()
            try await bob.start()
            try await eventually("first beacon") { aliceHeard.all.count == 1 }
            bob.announceNow()
            try await eventually("second beacon") { aliceHeard.all.count == 2 }
            await alice.stop()
            await bob.stop()
        }
    }

    @Test func startTwiceOrAfterStopIsRefused() async throws {
        try await withEventLoopGroup { group in
            // Held until the test ends: the services bind it beside this socket.
            let reserved = try DiscoveryPort(host: Self.broadcastHost)
            defer { withExtendedLifetime(reserved) {} }
            let port = reserved.number
            let (alice, _) = try service(Keys.alice, port: port, group: group)
            try await alice.start()
            await #expect(throws: DiscoveryError.alreadyStarted) { try await alice.start() }
            await alice.stop()
            await #expect(throws: DiscoveryError.stopped) { try await alice.start() }
            #expect(alice.localAddress == nil)
        }
    }

    @Test func theMachinesOwnPlanNeverTargetsLoopback() throws {
        // Only inspected, never used: sending to them would leave the machine.
        let plan = BeaconPlan.make(interfaces: NetworkInterface.current(), port: 7460)
        for target in plan.targets {
            #expect(target.interface != "lo")
            #expect(target.address.port == 7460)
            if target.kind == .broadcast { #expect(target.address.ipAddress?.hasPrefix("127.") == false) }
        }
    }

    /// Over IPv6 (unicast to ::1: loopback has no multicast here), and one beacon sent to
    /// both families is reported once: the sockets share their replay memory.
    @Test func aBeaconOverIPv6IsHeardAndOneSentToBothFamiliesOnce() async throws {
        try await withEventLoopGroup { group in
            // Held until the test ends: the services bind it beside this socket.
            let reserved = try DiscoveryPort(host: Self.broadcastHost)
            defer { withExtendedLifetime(reserved) {} }
            let port = reserved.number
            var configuration = DiscoveryConfiguration(
                identity: Keys.bob, networkKey: .default, tcpPort: 7461, targets: .fixed([]), logger: quietLogger())
            configuration.bindHost = Self.broadcastHost
            configuration.port = port
            let heard = Heard()
            let bob = DiscoveryService(configuration: configuration, group: group) { heard.append($0, $1) }
            try await bob.start()
            #expect(bob.localAddresses.map(\.protocol) == [.inet, .inet6])
            let v6 = try await DatagramBootstrap(group: group).bind(host: "::1", port: 0).get()
            let v4 = try await sender(group: group)
            func beacon(_ keys: SigningKeyPair, _ timestamp: Int64) -> ByteBuffer {
                ByteBuffer(
                    bytes: BeaconCodec.encode(
                        Beacon(node: keys.id, tcpPort: 7461, role: .person, timestamp: timestamp), signedBy: keys,
                        networkKey: .default))
            }
            let toV6 = try SocketAddress(ipAddress: "::1", port: port)
            try await v6.writeAndFlush(AddressedEnvelope(remoteAddress: toV6, data: beacon(Keys.alice, 100)))
            try await eventually("over IPv6") { heard.all.count == 1 }
            #expect(heard.all.first?.1.protocol == .inet6)
            try await send(Array(beacon(Keys.alice, 100).readableBytesView), via: v4, port: port)
            // A sentinel over IPv4: once it is in, the copy before it was seen and dropped.
            try await send(Array(beacon(Keys.carol, 5).readableBytesView), via: v4, port: port)
            try await eventually("sentinel") { heard.nodes.contains(Keys.carol.id) }
            #expect(heard.nodes == [Keys.alice.id, Keys.carol.id])
            try await v6.close()
            try await v4.close()
            await bob.stop()
        }
    }

    /// NIO closes a datagram socket on most send errors; discovery must not die with it.
    /// The only target here is the IPv6 group on an interface that does not exist, so every
    /// beacon fails to send (and goes nowhere); the service opens its socket again, and a
    /// beacon sent to it afterwards is heard.
    @Test func aSocketClosedByASendErrorIsOpenedAgain() async throws {
        try await withEventLoopGroup { group in
            // Held until the test ends: the services bind it beside this socket.
            let reserved = try DiscoveryPort(host: Self.broadcastHost)
            defer { withExtendedLifetime(reserved) {} }
            let port = reserved.number
            guard case .v6(let v6) = try SocketAddress(ipAddress: "ff12::7460", port: port) else { return }
            var raw = v6.address
            raw.sin6_scope_id = 99_999
            var configuration = DiscoveryConfiguration(
                identity: Keys.bob, networkKey: .default, tcpPort: 7461,
                targets: .fixed([SocketAddress(raw, host: "ff12::7460")]), logger: quietLogger())
            configuration.bindHost = Self.broadcastHost
            configuration.port = port
            configuration.schedule = .constant(.seconds(30))
            let heard = Heard()
            let bob = DiscoveryService(configuration: configuration, group: group) { heard.append($0, $1) }
            try await bob.start()
            let sender = try await DatagramBootstrap(group: group).bind(host: "::1", port: 0).get()
            let target = try SocketAddress(ipAddress: "::1", port: port)
            // The first beacon failed at once and closed the socket; beacons sent to it from
            // now on are heard only once it is open again (about a second later).
            for timestamp in Int64(1)...60 where heard.all.isEmpty {
                let beacon = BeaconCodec.encode(
                    Beacon(node: Keys.alice.id, tcpPort: 7461, role: .person, timestamp: timestamp),
                    signedBy: Keys.alice,
                    networkKey: .default)
                try await sender.writeAndFlush(
                    AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: beacon)))
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(heard.nodes.first == Keys.alice.id)
            #expect(bob.localAddresses.contains { $0.protocol == .inet6 })
            try await sender.close()
            await bob.stop()
        }
    }
}
