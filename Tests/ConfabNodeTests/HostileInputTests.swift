import Foundation
import NIOCore
import NIOPosix
import Testing

/// A node keeps serving its peers while others send it garbage or speak for another
/// network.
@Suite(.serialized) struct HostileInputTests {
    @Test func garbageAndOtherNetworksAreRefusedWhileGoodPeersKeepTalking() async throws {
        let root = try temporaryRoot()
        let port = randomDiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discoveryPort: port)
        let bob = try NodeProcess(name: "bob", root: root, discoveryPort: port)
        let mallory = try NodeProcess(name: "mallory", root: root, discoveryPort: port)
        defer {
            for node in [alice, bob, mallory] { try? node.stop() }
        }
        try alice.start()
        try bob.start()
        // Same LAN, same discovery port, another network key.
        try mallory.start(extra: ["--network-key", String(repeating: "ab", count: 32)])
        try await waitUntil(timeout: 20, "alice and bob to connect") { try alice.onlinePeers() == ["bob"] }

        let status = try #require(try alice.cli(["status", "--json"]).json() as? [String: Any])
        let listen = try #require(status["listen"] as? String)
        let alicePort = try #require(Int(listen.split(separator: ":").last ?? ""))

        // Random bytes, and an oversized claim, straight at alice's session port.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        for payload in [
            (0..<4096).map { _ in UInt8.random(in: 0...255) }, [UInt8](repeating: 0xff, count: 200_000),
        ] {
            let channel = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: alicePort).get()
            try? await channel.writeAndFlush(channel.allocator.buffer(bytes: payload)).get()
            // Alice hangs up on it.
            try await withTimeout(seconds: 15) { try await channel.closeFuture.get() }
        }
        try await group.shutdownGracefully()

        let sent = try alice.cli(["send", "bob", "still here", "--wait", "--timeout", "10"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try bob.texts(with: "alice") == ["still here"])
        // Mallory's beacons were heard and ignored: no session, no peer entry.
        #expect(try mallory.onlinePeers().isEmpty)
        #expect(try !alice.cli(["peers", "--json"]).stdout.contains("mallory"))
        #expect(alice.log.contains("handshake") || alice.log.contains("closing"))
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
