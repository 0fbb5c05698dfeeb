import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import ConfabWire
import Foundation
import NIOCore
import NIOPosix
import Testing

/// On an office LAN a node with its share of strangers hears a few beacons a second that
/// only repeat what a stranger said last: it drops them unchecked and unhandled (Protocol.md
/// §11.4), and checks them again once the key matters to it.
@Suite(.serialized) struct BeaconRepeatTests {
    /// A stranger beaconing to Alice's discovery port, always the same beacon but for its
    /// timestamp.
    final class Beaconer {
        let keys = SigningKeyPair.generate()
        let channel: any Channel
        let target: SocketAddress
        private var timestamp: Int64 = 1_000

        init(to port: Int) async throws {
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: 0).get()
            target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        }

        /// Sent without waiting for the write, so that a poll can send one each time it looks.
        func beacon() {
            timestamp += 1
            // A port where nothing listens: a dial on it fails, as a dial on a lie would.
            let bytes = BeaconCodec.encode(
                Beacon(node: NodeID(keys.publicKey), tcpPort: 9, role: .person, timestamp: timestamp),
                signedBy: keys, networkKey: .default)
            channel.writeAndFlush(
                AddressedEnvelope(remoteAddress: target, data: channel.allocator.buffer(bytes: bytes)), promise: nil)
        }
    }

    func activity(_ node: NodeProcess) throws -> (checked: Int, repeated: Int) {
        let status = try #require(try node.cli(["status", "--json"]).json() as? [String: Any])
        let activity = try #require(status["activity"] as? [String: Any])
        return (try #require(activity["beaconsChecked"] as? Int), try #require(activity["beaconsRepeated"] as? Int))
    }

    @Test func aStrangersRepeatsAreDroppedUncheckedUntilTheKeyIsChosen() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discovery: discovery)
        defer { try? alice.stop() }
        try alice.start()
        // Her share of strangers: eight sessions with keys she does not know. She greets each
        // only once her discovery knows whose beacons she still attends to.
        var strangers: [HostilePeer] = []
        for i in 0..<8 {
            let stranger = try HostilePeer(name: "stranger\(i)")
            try await stranger.connect(to: alice)
            strangers.append(stranger)
        }
        try await waitUntil(timeout: 30, "alice's Hello to each of the eight strangers") {
            try strangers.allSatisfy { stranger in
                try stranger.received(from: alice).contains { if case .hello = $0 { true } else { false } }
            }
        }

        let kay = try await Beaconer(to: discovery.number)
        defer { _ = kay.channel.close(mode: .all) }
        let start = try activity(alice)
        kay.beacon()
        try await waitUntil(timeout: 30, "kay's first beacon checked") {
            try activity(alice).checked == start.checked + 1
        }
        for _ in 0..<3 { kay.beacon() }
        try await waitUntil(timeout: 30, "three repeats of kay's beacon dropped") {
            try activity(alice).repeated == start.repeated + 3
        }
        #expect(try activity(alice).checked == start.checked + 1, "only kay's first beacon was checked")
        #expect(try alice.listedPeers()[NodeID(kay.keys.publicKey).hex] == nil)

        // Alice chooses Kay: she re-reads whom she chose within seconds, and from then on
        // Kay's beacons (one each time this looks) are checked again.
        try alice.cli(["peers", "add", NodeID(kay.keys.publicKey).hex, "--name", "kay"])
        let chosen = try activity(alice)
        try await waitUntil(timeout: 30, "kay's beacons checked again") {
            kay.beacon()
            return try activity(alice).checked > chosen.checked
        }
        for stranger in strangers { await stranger.shutdown() }
    }
}
