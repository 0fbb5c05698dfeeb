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
        let port = try freeDiscoveryPort()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discoveryPort: port)
        let (alice, bob) = (nodes[0], nodes[1])
        defer { for node in nodes { try? node.stop() } }
        try alice.start()
        try bob.start()
        try await waitUntil(timeout: 30, "alice and bob to meet") { try alice.onlinePeers() == ["bob"] }

        // The "third party" the attacker aims every node at, and a second port there for a
        // beacon sent after the flood, whose dial shows that a node has dealt with the flood.
        let trap = try await ConnectionCounter.listen(host: "127.0.0.4")
        defer { Task { await trap.close() } }
        let after = try await ConnectionCounter.listen(host: "127.0.0.4")
        defer { Task { await after.close() } }
        let group = MultiThreadedEventLoopGroup.singleton
        let sender = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_broadcast), value: 1)
            .bind(host: "127.0.0.4", port: 0).get()
        let target = try SocketAddress(ipAddress: "127.255.255.255", port: port)
        func beacon(_ key: SigningKeyPair, to counter: ConnectionCounter, _ i: Int) async throws {
            let beacon = Beacon(
                node: NodeID(key.publicKey), tcpPort: UInt16(counter.port), role: .person,
                timestamp: 1_800_000_000_000 + Int64(i))
            let datagram = BeaconCodec.encode(beacon, signedBy: key, networkKey: .default)
            try await sender.writeAndFlush(
                AddressedEnvelope(remoteAddress: target, data: sender.allocator.buffer(bytes: datagram)))
        }
        for i in 0..<2000 {
            try await beacon(SigningKeyPair.generate(), to: trap, i)
        }
        // The beacons were heard: each node went as far as one dial to the trap.
        try await waitUntil(timeout: 30, "the nodes to hear the flood") { alice.log.contains("127.0.0.4") }
        // A node handles beacons in the order they come: once each has dialled the second
        // port, named by a beacon sent after the flood, the flood is behind it. (That beacon
        // goes again every 200 ms, in case a busy socket dropped it: only the first heard
        // makes a dial; the others find the key backing off.)
        let marker = SigningKeyPair.generate()
        let dialled = "dial \(NodeID(marker.publicKey).shortHex) at 127.0.0.4:\(after.port) failed"
        let deadline = Date().addingTimeInterval(30)
        var sent = 2000
        while !nodes.allSatisfy({ $0.log.contains(dialled) }) {
            guard Date() < deadline else {
                throw NodeProcess.Failure("timed out after 30 s waiting for both nodes to dial \(after.port)")
            }
            sent += 1
            try await beacon(marker, to: after, sent)
            try await Task.sleep(for: .milliseconds(200))
        }
        try await sender.close()
        // Each node dialled that address once at most (one dial per address per 30 s).
        #expect(trap.accepted <= 2, "\(trap.accepted) connections to the attacker's address")
        // No stranger took a presence slot or a row.
        #expect(try alice.listedPeers().count <= 3)
        // Alice and Bob still talk.
        #expect(try alice.cli(["send", "bob", "still here", "--wait", "--timeout", "30"]).status == 0)
    }

    /// H7: silent connections (no key needed) once took all 64 slots and locked every peer
    /// out; now they have a small budget of their own and must speak within 3 s.
    @Test func silentConnectionsLockNobodyOut() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discoveryPort: try freeDiscoveryPort())
        let (alice, bob) = (nodes[0], nodes[1])
        defer { for node in nodes { try? node.stop() } }
        try alice.start()
        let port = alice.port
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
        try await waitUntil(timeout: 30, "bob to reach alice") { try bob.onlinePeers() == ["alice"] }
        #expect(try bob.cli(["send", "alice", "made it", "--wait", "--timeout", "30"]).status == 0)
        // The silent ones were let go.
        try await waitUntil(timeout: 30, "the silent connections to be closed") {
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
        // A peer alice chose says Hello the same way, claiming to listen at a port of its own.
        let friendTrap = try await ConnectionCounter.listen(host: "127.0.0.1")
        defer { Task { await friendTrap.close() } }
        let friend = try HostilePeer(name: "friend")
        try alice.cli(["peers", "add", friend.id.hex, "--name", "friend"])
        try await friend.connect(to: alice, listenPort: UInt16(friendTrap.port))
        try await waitUntil(timeout: 30, "alice to remember where friend listens") {
            (try alice.listedPeers()[friend.id.hex]?["address"] as? String)?.hasSuffix(":\(friendTrap.port)") == true
        }
        await friend.shutdown()
        // Twenty throwaway keys say Hello, each claiming to listen where the trap is.
        for i in 0..<20 {
            let stranger = try HostilePeer(name: "stranger\(i)")
            try await stranger.connect(to: alice, listenPort: UInt16(trap.port))
            try await waitUntil(timeout: 30, "alice to remember stranger \(i)") {
                try alice.listedPeers()[stranger.id.hex] != nil
            }
            await stranger.shutdown()
        }
        try alice.stop()
        let restart = alice.logMark()
        try alice.start(discovery: false)
        // Alice redials the peer she chose, at once, where it said it listens; her redials
        // all start together, so once that one has been tried and failed, a redial of a
        // stranger would have reached the trap too.
        try await alice.waitForLog(
            "static peer \(friend.id.hex)@127.0.0.1:\(friendTrap.port) as \(friend.id.shortHex): ", after: restart)
        #expect(friendTrap.accepted >= 1)
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
