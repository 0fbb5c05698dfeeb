import ConfabTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

/// Lies told without a session: a beacon replayed from another host, and a name that looks
/// like someone else's key.
@Suite(.serialized) struct HostileBeaconAndNameTests {
    @Test func aReplayedBeaconDoesNotMoveAPeersAddress() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: discovery)
        let (alice, bob) = (nodes[0], nodes[1])
        defer { for node in nodes { try? node.stop() } }
        let group = MultiThreadedEventLoopGroup.singleton

        // Mallory listens on the discovery port, as anyone on the LAN can, and keeps a beacon
        // of Bob's while Alice and Bob meet.
        let bobID = try bob.nodeID()
        let tap = try await BeaconTap.listen(port: discovery.number)
        try alice.start()
        try bob.start()
        try await waitUntil(timeout: 30, "alice and bob to meet") { try alice.onlinePeers() == ["bob"] }
        try await waitUntil(timeout: 30, "a beacon of bob's") { !tap.beacons(from: bobID).isEmpty }
        let bobAddress = try #require(try alice.listedPeers()[bob.key]?["address"] as? String)
        await tap.close()
        try bob.stop()
        try alice.stop()

        // Alice alone again; Mallory replays Bob's beacon from 127.0.0.2.
        try alice.start()
        let sender = try await DatagramBootstrap(group: group).bind(host: "127.0.0.2", port: 0).get()
        let datagram = try #require(tap.beacons(from: bobID).first)
        try await sender.writeAndFlush(
            AddressedEnvelope(
                remoteAddress: try SocketAddress(ipAddress: "127.0.0.1", port: discovery.number),
                data: sender.allocator.buffer(bytes: datagram)))
        // Alice believed the beacon enough to dial where it came from (that is all it may do).
        try await waitUntil(timeout: 30, "alice to dial the replayed address") { alice.log.contains("127.0.0.2") }
        try await sender.close()
        let listed = try #require(try alice.listedPeers()[bob.key])
        #expect((listed["address"] as? String)?.hasPrefix("127.0.0.2") != true, "\(listed)")
        try alice.stop()
        try alice.start()
        #expect(try alice.listedPeers()[bob.key]?["address"] as? String == bobAddress)
    }

    @Test func aNameThatLooksLikeAKeyNeverTakesTheKeysPlace() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: try DiscoveryPort())
        let (alice, bob) = (nodes[0], nodes[1])
        defer { for node in nodes { try? node.stop() } }
        try alice.start()
        // Mallory introduces itself with Bob's key, then with Bob's key prefix, as its name.
        for claim in [bob.key, String(bob.key.prefix(16))] {
            let mallory = try HostilePeer(name: "mallory")
            try await mallory.connect(to: alice, displayName: claim)
            try await waitUntil(timeout: 30, "alice to remember mallory") {
                try alice.listedPeers()[mallory.id.hex] != nil
            }
            let stored = try #require(try alice.listedPeers()[mallory.id.hex])
            #expect(stored["name"] as? String != claim)
            #expect(stored["warning"] as? String != nil)
            await mallory.shutdown()
        }
        // Bob's key and prefix still mean Bob.
        #expect(try alice.cli(["send", String(bob.key.prefix(16)), "for bob only"]).status == 0)
        #expect(try alice.cli(["send", bob.key, "for bob only, again"]).status == 0)
        try bob.start()
        try await waitUntil(timeout: 30, "bob to get both") {
            try bob.texts(with: "alice") == ["for bob only", "for bob only, again"]
        }
        let verify = try alice.cli(["verify", String(bob.key.prefix(16)), "--confirm"])
        #expect(verify.status != 0)
    }
}
