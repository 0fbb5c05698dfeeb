import ConfabClient
import ConfabModel
import ConfabTestSupport
import Foundation
import Testing

/// What another process's commits to a running node's store make the node do (Protocol.md
/// §13): the entries of mine it wrote reach peers, its local state costs them nothing, and a
/// peer it made worth dialling is dialled. Discovery is off throughout: every message the
/// nodes exchange is one the test caused.
@Suite struct ExternalWriteTests {
    let root: URL

    init() throws {
        root = try temporaryRoot()
    }

    /// Alice and Bob know each other by hand; Bob dials Alice.
    func connectedPair(beforeStart: (NodeProcess) throws -> Void = { _ in }) async throws -> (NodeProcess, NodeProcess)
    {
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root)
        let (alice, bob) = (nodes[0], nodes[1])
        try beforeStart(alice)
        try alice.start(discovery: false)
        try bob.start(discovery: false, extra: ["--peer", alice.peerAddress])
        try await waitUntil(timeout: 30, "a session between alice and bob") { try alice.sessionKeys() == [bob.key] }
        return (alice, bob)
    }

    /// The chat attached to Alice's `confab up` saves the conversation it last opened, in the
    /// store, each time one is opened: a commit by another process, which the node notices
    /// (it tells its watchers, each time) and keeps from Bob. A node that re-announced every
    /// clock on each such commit sent Bob a Clocks message per conversation opened: 22
    /// messages for this test's 20 opens and one message delivered, instead of 2.
    @Test func openingConversationsInTheAttachedChatCostsThePeerNothing() async throws {
        try #require(Tmux.isAvailable, "the chat tests need tmux (make test-deps installs it)")
        let tmux = Tmux(directory: root)
        defer { tmux.stop() }
        let (alice, bob) = try await connectedPair()
        defer {
            try? alice.stop()
            try? bob.stop()
        }
        var ids: [String] = []
        for index in 1...20 {
            let created = try alice.cli(["new", "bob", "--title", "topic \(index)", "--json"])
            ids.append(try #require((try created.json() as? [String: Any])?["id"] as? String))
        }
        try await waitUntil(timeout: 30, "bob to hold all 20 (alice's outbox empty)") { try alice.outboxCount() == 0 }
        let watch = try EventWatch(alice)
        defer { watch.stop() }
        try await watch.waitUntilSubscribed()
        // Network options as for a chat that runs its own node, so that one that failed to
        // attach would stay on loopback: this one attaches to alice's node.
        try tmux.start(
            session: "alice", width: 100, height: 30,
            command: "\(ConfabBinary.url.path) --data \(alice.data.path) chat --listen 127.0.0.1:0 --no-discovery",
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"])
        try await tmux.waitFor("alice", text: "topic 20")
        try await tmux.waitFor("alice", text: "Online · 1 peer")

        let before = try alice.messageCounts()
        let noticed = { watch.events.count { $0["event"] as? String == "changed" && $0["conversation"] == nil } }
        for index in 1...20 {
            let seen = noticed()
            // Each open is a row not open yet: the list's first, then the one below.
            if index > 1 { try tmux.press("Down", in: "alice") }
            try tmux.press("Enter", in: "alice")
            try await watch.waitFor("alice's node to notice the chat's write for open \(index)") { _ in
                noticed() > seen
            }
            try tmux.press("Escape", in: "alice")
            try await tmux.waitFor("alice", text: "q quit")
        }
        // The way to Bob still works: a message sent now reaches him, and his delivered
        // receipt comes back.
        #expect(try alice.cli(["send", ids[0], "after the tour"]).status == 0)
        try await waitUntil(timeout: 30, "alice's message delivered to bob") {
            let history = try alice.cli(["history", ids[0], "--json", "--no-mark-read"]).json() as? [[String: Any]]
            return history?.last?["status"] as? String == "delivered"
        }
        #expect(try bob.cli(["history", ids[0], "--json", "--no-mark-read"]).stdout.contains("after the tour"))
        // All Alice sent Bob since the chat was up: the message's Entries, and the
        // acknowledgement of Bob's delivered receipt.
        let sent = try alice.messageCounts().sent - before.sent
        #expect(sent >= 1 && sent <= 2, "alice sent bob \(sent) messages for 20 opens and one message")
    }

    /// A command that found no node (a `LocalMessenger` on its own store) writes after the
    /// node started: a new conversation with its first message, then a second message. Each
    /// reaches Bob within seconds, pushed by the node as its own writes are.
    @Test func entriesWrittenBesideTheRunningNodeReachThePeerPromptly() async throws {
        var beside: LocalMessenger?
        let (alice, bob) = try await connectedPair { alice in
            beside = LocalMessenger(local: try Profile.open(DataDirectory(url: alice.data)))
        }
        defer {
            try? alice.stop()
            try? bob.stop()
        }
        let messenger = try #require(beside)
        let bobID = try #require(NodeID(hex: bob.key))

        var started = ContinuousClock.now
        let first = try await messenger.send("written beside the node", to: .newConversation(with: bobID))
        #expect(first.created)
        try await waitUntil(timeout: 30, "bob to hold the new conversation's message") {
            try bob.texts(with: "alice") == ["written beside the node"]
        }
        #expect(ContinuousClock.now - started < .seconds(10))

        started = ContinuousClock.now
        _ = try await messenger.send("and another", to: .conversation(first.conversation))
        try await waitUntil(timeout: 30, "bob to hold the second message") {
            try bob.texts(with: "alice") == ["written beside the node", "and another"]
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        try await waitUntil(timeout: 30, "both delivered, as alice's node sees it") {
            try alice.statuses(with: "bob") == ["delivered", "delivered"]
        }
    }

    /// Bob once reached Alice, so she knows where he accepts sessions, but he is a stranger
    /// to her and she never dials him; nor does he dial her, restarted without `--peer`.
    /// `confab peers add` (the `add_peer` operation, through her node) makes him a peer of
    /// hers to dial: her node dials him at once, with no beacon to prompt it.
    @Test func aPeerAddedByAnotherProcessIsDialledAtItsRememberedAddress() async throws {
        let alice = try NodeProcess(name: "alice", root: root)
        let bob = try NodeProcess(name: "bob", root: root)
        defer {
            try? alice.stop()
            try? bob.stop()
        }
        try alice.start(discovery: false)
        try bob.start(discovery: false, extra: ["--peer", alice.peerAddress])
        try await waitUntil(timeout: 30, "a first session") { try alice.sessionKeys() == [bob.key] }
        try await waitUntil(timeout: 30, "alice to remember bob's address") {
            try alice.listedPeers()[bob.key]?["address"] as? String == bob.address
        }
        try bob.stop()
        try await waitUntil(timeout: 30, "alice to see bob gone") { try alice.sessionKeys().isEmpty }
        try bob.start(listenPort: bob.port, discovery: false)
        #expect(try alice.sessionKeys().isEmpty)

        let mark = alice.logMark()
        #expect(try alice.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        try await waitUntil(timeout: 30, "alice to dial bob") { try alice.sessionKeys() == [bob.key] }
        #expect(
            alice.log(after: mark).contains("made a peer to dial here: dialling \(bob.key.prefix(8))"))
    }
}

extension NodeProcess {
    /// The protocol messages the node sent and received on its sessions since it started.
    func messageCounts() throws -> (sent: Int, received: Int) {
        let result = try cli(["status", "--json"])
        guard result.status == 0, let status = try result.json() as? [String: Any],
            let messages = status["messages"] as? [String: Any],
            let sent = messages["sent"] as? Int, let received = messages["received"] as? Int
        else { throw Failure("\(name)'s status has no message counts: \(result.stdout)\(result.stderr)") }
        return (sent, received)
    }
}
