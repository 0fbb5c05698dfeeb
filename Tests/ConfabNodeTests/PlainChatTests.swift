import ConfabTestSupport
import Foundation
import Testing

/// `confab chat --plain` as a screen-reader user or a script drives it: lines in, lines
/// out, real nodes on loopback.
@Suite struct PlainChatTests {
    @Test func firstRunAsksForANameThenShowsTheEmptyList() async throws {
        let data = try temporaryRoot().appendingPathComponent("new")
        let chat = try InteractiveProcess(
            data: data, ["chat", "--plain", "--no-discovery", "--listen", "127.0.0.1:0"])
        try await chat.waitFor("Your display name")
        try chat.send("Zoë")
        try await chat.waitFor("No conversations yet")
        try chat.send("/quit")
        #expect(try await chat.waitForExit() == 0)
        // Plain output never moves the cursor or colours anything.
        #expect(!chat.output.contains("\u{1B}"))
        let whoami = try ConfabBinary.run(data: data, ["whoami"])
        #expect(whoami.stdout.contains("Zoë"))
    }

    @Test func messagesGoOutAndComeInLiveWithTheirStatus() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: discovery)
        let (alice, bob) = (nodes[0], nodes[1])
        try alice.start()
        defer { try? alice.stop() }

        let chat = try InteractiveProcess(
            data: bob.data,
            [
                "chat", "--plain", "--listen", "127.0.0.1:0", "--discovery-port", "\(discovery.number)", "--beacon",
                "127.255.255.255:\(discovery.number)",
            ])
        try await chat.waitFor("* alice is online")
        try chat.send("/new alice")
        try await chat.waitFor("new conversation with alice")
        try chat.send("hello from plain")
        try await waitUntil(timeout: 30, "alice to receive the message") {
            try alice.texts(with: "bob").contains("hello from plain")
        }
        try await chat.waitFor("✓✓ delivered: hello from plain")
        // Alice reads it (history marks read): the read receipt comes back.
        try alice.cli(["history", "bob"])
        try await chat.waitFor("✓✓ read: hello from plain")
        try alice.cli(["send", "bob", "hi back"])
        try await chat.waitFor("alice: hi back")
        try chat.send("/list")
        try await chat.waitFor("1. alice — hi back")
        try chat.send("/search hello")
        try await chat.waitFor("«hello» from plain")
        try chat.closeInput()
        #expect(try await chat.waitForExit() == 0)
        // The chat ran its own node: stopping it leaves no write-ahead log (Protocol.md §8.0).
        let left = try FileManager.default.contentsOfDirectory(atPath: bob.data.path)
        #expect(!left.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }, "the chat left \(left)")
    }

    @Test func attachesToTheNodeAlreadyRunningForTheDataDirectory() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: discovery)
        let (alice, bob) = (nodes[0], nodes[1])
        try alice.start()
        defer { try? alice.stop() }
        try bob.start()
        defer { try? bob.stop() }
        try await waitUntil(timeout: 30, "alice and bob to connect") { try alice.onlinePeers().contains("bob") }

        // A second process on alice's data directory: the running node holds the lock, so the
        // chat must attach to it through the control socket rather than start its own.
        let chat = try InteractiveProcess(data: alice.data, ["chat", "--plain", "--no-discovery"])
        try await chat.waitFor("Online · 1 peer")
        try chat.send("/new bob")
        try chat.send("through the running node")
        try await waitUntil(timeout: 30, "bob to receive the message") {
            try bob.texts(with: "alice").contains("through the running node")
        }
        try bob.cli(["send", "alice", "seen it"])
        try await chat.waitFor("bob: seen it")
        try chat.send("/quit")
        #expect(try await chat.waitForExit() == 0)
        // The node the chat attached to keeps running after it.
        #expect(try alice.onlinePeers().contains("bob"))
    }

    /// The node a plain chat attached to stops under it: the chat says so, as the
    /// full-screen chat does, and what is written then waits in the outbox.
    @Test func saysWhenTheNodeItAttachedToStops() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: try DiscoveryPort())
        let alice = nodes[0]
        try alice.start()
        defer { try? alice.stop() }
        let chat = try InteractiveProcess(data: alice.data, ["chat", "--plain", "--no-discovery"])
        try await chat.waitFor("Offline —")
        try alice.stop()
        try await chat.waitFor("The node (confab up) stopped; messages stay queued")
        try chat.send("/new bob")
        try chat.send("written while no node runs")
        try chat.send("/quit")
        #expect(try await chat.waitForExit() == 0)
        let history = try alice.cli(["history", "bob"])
        #expect(history.status == 0 && history.stdout.contains("written while no node runs"))
        #expect(history.stdout.contains("sending"))
    }
}
