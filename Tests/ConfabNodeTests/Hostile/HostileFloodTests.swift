import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Floods that cost an attacker nothing (fresh keys, spoofable addresses) against real
/// nodes on loopback, each bounded in count and time; the victim stays healthy and makes
/// no connection it did not choose.
@Suite(.serialized) struct HostileFloodTests {
    @Test func aBeaconFloodFromFreshKeysAimsNoConnectionsAnywhere() async throws {
        let root = try temporaryRoot()
        let port = randomDiscoveryPort()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discoveryPort: port)
        let (alice, bob) = (nodes[0], nodes[1])
        defer { for node in nodes { try? node.stop() } }
        try alice.start()
        try bob.start()
        try await waitUntil(timeout: 20, "alice and bob to meet") { try alice.onlinePeers() == ["bob"] }

        // The "third party" the attacker aims every node at.
        let trap = try await ConnectionCounter.listen(host: "127.0.0.4")
        defer { Task { await trap.close() } }
        let group = MultiThreadedEventLoopGroup.singleton
        let sender = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_broadcast), value: 1)
            .bind(host: "127.0.0.4", port: 0).get()
        let target = try SocketAddress(ipAddress: "127.255.255.255", port: port)
        for i in 0..<2000 {
            let key = SigningKeyPair.generate()
            let beacon = Beacon(
                node: NodeID(key.publicKey), tcpPort: UInt16(trap.port), role: .person,
                timestamp: 1_800_000_000_000 + Int64(i))
            let datagram = BeaconCodec.encode(beacon, signedBy: key, networkKey: .default)
            try await sender.writeAndFlush(
                AddressedEnvelope(remoteAddress: target, data: sender.allocator.buffer(bytes: datagram)))
        }
        // The beacons were heard: each node went as far as one dial to the trap.
        try await waitUntil(timeout: 10, "the nodes to hear the flood") { alice.log.contains("127.0.0.4") }
        try await Task.sleep(for: .seconds(2))
        try await sender.close()
        // Each node dialled that address once at most (one dial per address per 30 s).
        #expect(trap.accepted <= 2, "\(trap.accepted) connections to the attacker's address")
        // No stranger took a presence slot or a row.
        #expect(try alice.listedPeers().count <= 3)
        // Alice and Bob still talk.
        #expect(try alice.cli(["send", "bob", "still here", "--wait", "--timeout", "10"]).status == 0)
    }

    /// H7: silent connections (no key needed) once took all 64 slots and locked every peer
    /// out; now they have a small budget of their own and must speak within 3 s.
    @Test func silentConnectionsLockNobodyOut() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discoveryPort: randomDiscoveryPort())
        let (alice, bob) = (nodes[0], nodes[1])
        defer { for node in nodes { try? node.stop() } }
        try alice.start()
        let port = try alice.listenPort()
        var silent: [any Channel] = []
        for i in 0..<70 {
            let source = try SocketAddress(ipAddress: "127.0.0.\(2 + i % 5)", port: 0)
            if let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(to: source).connect(host: "127.0.0.1", port: port).get()
            {
                silent.append(channel)
            }
        }
        defer { for channel in silent { channel.close(promise: nil) } }
        // Bob comes while they are held, finds Alice, and they talk.
        try bob.start()
        try await waitUntil(timeout: 20, "bob to reach alice") { try bob.onlinePeers() == ["alice"] }
        #expect(try bob.cli(["send", "alice", "made it", "--wait", "--timeout", "10"]).status == 0)
        // The silent ones were let go.
        try await waitUntil(timeout: 10, "the silent connections to be closed") {
            silent.allSatisfy { !$0.isActive }
        }
    }

    @Test func strangersThatSaidHelloAreNotRedialledAfterARestart() async throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root, discoveryPort: 0)
        defer { try? alice.stop() }
        try alice.start(discovery: false)
        let trap = try await ConnectionCounter.listen(host: "127.0.0.1")
        defer { Task { await trap.close() } }
        // Twenty throwaway keys say Hello, each claiming to listen where the trap is.
        for i in 0..<20 {
            let stranger = try HostilePeer(name: "stranger\(i)")
            try await stranger.connect(to: alice, listenPort: UInt16(trap.port))
            try await waitUntil(timeout: 10, "alice to remember stranger \(i)") {
                try alice.listedPeers()[stranger.id.hex] != nil
            }
            await stranger.shutdown()
        }
        try alice.stop()
        try alice.start(discovery: false)
        try await Task.sleep(for: .seconds(3))
        #expect(trap.accepted == 0, "alice redialled \(trap.accepted) strangers")
    }
}

/// A TCP listener that counts the connections it accepts and closes each at once.
final class ConnectionCounter: Sendable {
    private let channel: any Channel
    private let count: NIOLockedValueBox<Int>
    let port: Int

    var accepted: Int { count.withLockedValue { $0 } }

    private init(channel: any Channel, count: NIOLockedValueBox<Int>) {
        self.channel = channel
        self.count = count
        port = channel.localAddress?.port ?? 0
    }

    static func listen(host: String) async throws -> ConnectionCounter {
        let count = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                count.withLockedValue { $0 += 1 }
                return child.close()
            }
            .bind(host: host, port: 0).get()
        return ConnectionCounter(channel: channel, count: count)
    }

    func close() async { try? await channel.close() }
}
