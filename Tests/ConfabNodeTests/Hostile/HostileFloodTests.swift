import ConfabCrypto
import ConfabModel
import ConfabTestSupport
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
        let discovery = try DiscoveryPort()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: discovery)
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
        let target = try SocketAddress(ipAddress: "127.255.255.255", port: discovery.number)
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
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: try DiscoveryPort())
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
        let alice = try NodeProcess(name: "alice", root: root)
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

    /// Anyone may create a conversation naming Alice and throwaway keys: Alice keeps it
    /// (she is a member), but that makes none of those keys hers. They are not redialled
    /// after a restart, and their beacons get only the budget of keys she does not know.
    @Test func keysNamedInSomeoneElsesConversationStayStrangers() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discovery: discovery)
        defer { try? alice.stop() }
        try alice.start(discovery: false)
        let redialTrap = try await ConnectionCounter.listen(host: "127.0.0.1")
        defer { Task { await redialTrap.close() } }
        let friendTrap = try await ConnectionCounter.listen(host: "127.0.0.1")
        defer { Task { await friendTrap.close() } }
        let friend = try HostilePeer(name: "friend")
        try alice.cli(["peers", "add", friend.id.hex, "--name", "friend"])
        try await friend.connect(to: alice, listenPort: UInt16(friendTrap.port))
        try await waitUntil(timeout: 30, "alice to remember where friend listens") {
            (try alice.listedPeers()[friend.id.hex]?["address"] as? String)?.hasSuffix(":\(friendTrap.port)") == true
        }
        await friend.shutdown()
        // Throwaway keys say Hello, each claiming to listen where the trap is.
        var strangers: [HostilePeer] = []
        for i in 0..<4 {
            let stranger = try HostilePeer(name: "stranger\(i)")
            try await stranger.connect(to: alice, listenPort: UInt16(redialTrap.port))
            try await waitUntil(timeout: 30, "alice to remember stranger \(i)") {
                try alice.listedPeers()[stranger.id.hex] != nil
            }
            await stranger.shutdown()
            strangers.append(stranger)
        }
        // Mallory, another stranger, pushes a conversation of Alice and all of them.
        let mallory = try HostilePeer(name: "mallory")
        try await mallory.connect(to: alice, listenPort: UInt16(redialTrap.port))
        let (id, _) = try mallory.store.createConversation(
            with: [try alice.nodeID()] + strangers.map(\.id), firstMessage: "we are all friends now")
        try mallory.send(.clocks([.init(conversation: id, clock: try mallory.store.clock(of: id))]), to: alice)
        try mallory.send(.entries(try mallory.store.entries(in: id, author: mallory.id, after: 0)), to: alice)
        try await waitUntil(timeout: 30, "alice to keep mallory's conversation") {
            try alice.texts(with: id.hex) == ["we are all friends now"]
        }
        await mallory.shutdown()

        try alice.stop()
        let restart = alice.logMark()
        try alice.start()
        // The peer Alice chose is redialled at once; her redials all start together, so a
        // redial of any key named in Mallory's conversation would have reached the trap.
        try await alice.waitForLog(
            "static peer \(friend.id.hex)@127.0.0.1:\(friendTrap.port) as \(friend.id.shortHex): ", after: restart)
        #expect(redialTrap.accepted == 0, "alice redialled \(redialTrap.accepted) keys named by mallory")

        // Beacons under those keys, all naming one address: one dial there at most, as for
        // any keys Alice does not know (one unknown key per address every 30 s).
        let beaconTrap = try await ConnectionCounter.listen(host: "127.0.0.4")
        defer { Task { await beaconTrap.close() } }
        let after = try await ConnectionCounter.listen(host: "127.0.0.4")
        defer { Task { await after.close() } }
        let sender = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_broadcast), value: 1)
            .bind(host: "127.0.0.4", port: 0).get()
        let target = try SocketAddress(ipAddress: "127.255.255.255", port: discovery.number)
        func beacon(_ key: SigningKeyPair, to counter: ConnectionCounter, _ i: Int) async throws {
            let beacon = Beacon(
                node: NodeID(key.publicKey), tcpPort: UInt16(counter.port), role: .person,
                timestamp: 1_800_000_000_000 + Int64(i))
            let datagram = BeaconCodec.encode(beacon, signedBy: key, networkKey: .default)
            try await sender.writeAndFlush(
                AddressedEnvelope(remoteAddress: target, data: sender.allocator.buffer(bytes: datagram)))
        }
        for (i, named) in (strangers + [mallory]).enumerated() {
            try await beacon(named.keys, to: beaconTrap, i)
        }
        // A beacon sent after them, from a fresh key to another port: once Alice has dialled
        // it, she has handled theirs (beacons are handled in order).
        let marker = SigningKeyPair.generate()
        let dialled = "dial \(NodeID(marker.publicKey).shortHex) at 127.0.0.4:\(after.port) failed"
        let deadline = Date().addingTimeInterval(30)
        var sent = 100
        while !alice.log(after: restart).contains(dialled) {
            guard Date() < deadline else { throw NodeProcess.Failure("timed out waiting for alice to dial the marker") }
            sent += 1
            try await beacon(marker, to: after, sent)
            try await Task.sleep(for: .milliseconds(200))
        }
        try await sender.close()
        // The first of those keys takes the address, and its dial fails at the trap, which
        // counts it before closing it. Any other dial there was started before the marker's,
        // alongside that one: once that one has been counted and has failed, so have they.
        let trapped = "at 127.0.0.4:\(beaconTrap.port) failed"
        try await waitUntil(timeout: 30, "alice's dial to the trap to be counted and to fail") {
            beaconTrap.accepted >= 1 && alice.logLines(trapped, after: restart) >= 1
        }
        #expect(beaconTrap.accepted <= 1, "\(beaconTrap.accepted) dials to one address for keys named by mallory")
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
