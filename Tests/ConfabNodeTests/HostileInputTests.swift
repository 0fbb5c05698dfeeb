import ConfabTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

/// A node keeps serving its peers while others send it garbage or speak for another
/// network.
@Suite(.serialized) struct HostileInputTests {
    @Test func garbageAndOtherNetworksAreRefusedWhileGoodPeersKeepTalking() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discovery: discovery)
        let bob = try NodeProcess(name: "bob", root: root, discovery: discovery)
        let mallory = try NodeProcess(name: "mallory", root: root, discovery: discovery)
        defer {
            for node in [alice, bob, mallory] { try? node.stop() }
        }
        // Trace level: alice logs each beacon of another network she ignores.
        try alice.start(logLevel: "trace")
        try bob.start()
        // Same LAN, same discovery port, another network key.
        try mallory.start(extra: ["--network-key", String(repeating: "ab", count: 32)])
        try await waitUntil(timeout: 30, "alice and bob to connect") { try alice.onlinePeers() == ["bob"] }

        // Random bytes, and an oversized claim, straight at alice's session port.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        for payload in [
            (0..<4096).map { _ in UInt8.random(in: 0...255) }, [UInt8](repeating: 0xff, count: 200_000),
        ] {
            let channel = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: alice.port).get()
            try? await channel.writeAndFlush(channel.allocator.buffer(bytes: payload)).get()
            // Alice hangs up on it.
            try await withTimeout(seconds: 30) { try await channel.closeFuture.get() }
        }
        try await group.shutdownGracefully()
        // Each for the reason it deserves: the first 64 bytes are no challenge of this
        // network (nor of any: they are noise).
        let refusal = [
            "reason=handshake message 1: challenge HMAC mismatch (different network key?)",
            "closing connection: handshake failed",
        ]
        try await alice.waitForLog(refusal[0], refusal[1], count: 2)

        let sent = try alice.cli(["send", "bob", "still here", "--wait", "--timeout", "30"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try bob.texts(with: "alice") == ["still here"])
        // Mallory's beacons were heard and ignored: no session, no peer entry.
        try await alice.waitForLog("ignoring beacon of another network", count: 2)
        #expect(try mallory.onlinePeers().isEmpty)
        #expect(try !alice.cli(["peers", "--json"]).stdout.contains("mallory"))
        #expect(try alice.sessionKeys() == [bob.key])
        #expect(alice.logLines(refusal[0], refusal[1]) == 2, "only the two garbage connections were refused")
    }
}

func withTimeout(seconds: Double, _ body: @escaping @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw NodeProcess.Failure("timed out after \(seconds) s")
        }
        try await group.next()
        group.cancelAll()
    }
}
