import ConfabTestSupport
import Foundation
import Testing

/// Real `confab up` processes on 127.0.0.1 discovering each other by beacons sent to
/// 127.255.255.255, driven through the real CLI.
@Suite(.serialized) struct LoopbackNodeTests {
    @Test func threeNodesDiscoverEachOtherAndMessagesFlowLiveBothWays() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let nodes = try ["alice", "bob", "carol"].map { try NodeProcess(name: $0, root: root, discovery: discovery) }
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])
        defer { for node in nodes { try? node.stop() } }
        for node in nodes { try node.start() }
        for node in nodes {
            try await waitUntil(timeout: 30, "\(node.name) to connect to both others") {
                try node.onlinePeers().count == 2
            }
        }

        let sent = try alice.cli(["send", "bob", "hello bob", "--wait", "--timeout", "30"])
        #expect(sent.status == 0, "\(sent.stderr)")
        try await waitUntil(timeout: 30, "bob to have alice's message") {
            try bob.texts(with: "alice") == ["hello bob"]
        }
        #expect(try bob.cli(["send", "alice", "hi alice", "--wait"]).status == 0)
        try await waitUntil(timeout: 30, "alice to have bob's reply") {
            try alice.texts(with: "bob") == ["hello bob", "hi alice"]
        }

        // A group: everyone gets it, and it reaches "delivered" for the sender.
        let group = try carol.cli(["new", "alice", "bob", "--title", "all", "--message", "group hello", "--json"])
        let id = try #require((try group.json() as? [String: Any])?["id"] as? String)
        try await waitUntil(timeout: 30, "the group message everywhere") {
            try [alice, bob].allSatisfy {
                try $0.cli(["history", id, "--json", "--no-mark-read"]).stdout.contains("group hello")
            }
        }
        try await waitUntil(timeout: 30, "carol's group message delivered") {
            let history = try carol.cli(["history", id, "--json", "--no-mark-read"]).json() as? [[String: Any]]
            return history?.first?["status"] as? String == "delivered"
        }
        // Reading it sends read receipts: the sender sees "read".
        #expect(try alice.cli(["history", id]).status == 0)
        #expect(try bob.cli(["history", id]).status == 0)
        try await waitUntil(timeout: 30, "carol's group message read") {
            let history = try carol.cli(["history", id, "--json", "--no-mark-read"]).json() as? [[String: Any]]
            return history?.first?["status"] as? String == "read"
        }
    }

    @Test func messageSentWhileRecipientIsDownArrivesWhenItStartsAndRestartsKeepEverything() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discovery: discovery)
        let bob = try NodeProcess(name: "bob", root: root, discovery: discovery)
        defer {
            try? alice.stop()
            try? bob.stop()
        }
        // Keys exchanged by hand: bob has never been online.
        #expect(try alice.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        try alice.start()
        let waiting = try alice.cli(["send", "bob", "while you were away", "--wait", "--timeout", "1"])
        #expect(waiting.status == 3)
        #expect(waiting.stderr.contains("not delivered"))

        try bob.start()
        try await waitUntil(timeout: 30, "bob to receive the queued message") {
            try bob.texts(with: "alice") == ["while you were away"]
        }
        try await waitUntil(timeout: 30, "delivered at alice") {
            let history = try alice.cli(["history", "bob", "--json", "--no-mark-read"]).json() as? [[String: Any]]
            return history?.first?["status"] as? String == "delivered"
        }

        // Restart both: everything is still there and they reconnect.
        try alice.stop()
        try bob.stop()
        try alice.start()
        try bob.start()
        try await waitUntil(timeout: 30, "reconnect after restart") { try alice.onlinePeers() == ["bob"] }
        #expect(try bob.texts(with: "alice") == ["while you were away"])
        #expect(try bob.cli(["send", "alice", "back again", "--wait", "--timeout", "30"]).status == 0)
        #expect(try alice.texts(with: "bob") == ["while you were away", "back again"])
    }

    @Test func staticPeersWorkWithDiscoveryOff() async throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root)
        let bob = try NodeProcess(name: "bob", root: root)
        defer {
            try? alice.stop()
            try? bob.stop()
        }
        // Bob knows Alice's key (exchanged by hand); Alice learns Bob from his Hello.
        #expect(try bob.cli(["peers", "add", alice.key, "--name", "alice"]).status == 0)
        #expect(try bob.cli(["send", "alice", "queued before either node ran"]).status == 0)
        try alice.start(discovery: false)
        try bob.start(discovery: false, extra: ["--peer", alice.address])
        try await waitUntil(timeout: 30, "alice to receive bob's queued message") {
            try alice.texts(with: "bob") == ["queued before either node ran"]
        }
        let reply = try alice.cli(["send", "bob", "got it", "--wait", "--timeout", "30"])
        #expect(reply.status == 0, "\(reply.stderr)")
        #expect(try bob.texts(with: "alice") == ["queued before either node ran", "got it"])
        #expect(try bob.cli(["status"]).stdout.contains("Online · 1 peer"))
    }

    @Test func resyncRedialsAKnownPeerAtOnceInsteadOfAfterTheBackoff() async throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root)
        let bob = try NodeProcess(name: "bob", root: root)
        defer {
            try? alice.stop()
            try? bob.stop()
        }
        try bob.cli(["peers", "add", alice.key, "--name", "alice"])
        // A first meeting, so that bob remembers where alice listens: a port the OS picked,
        // which she takes again below (another program could take it in between: a small
        // race, as for any port given back to the OS).
        try alice.start(discovery: false)
        let alicePort = alice.port
        try bob.start(discovery: false, extra: ["--peer", alice.address])
        try await waitUntil(timeout: 30, "a first session") { try bob.onlinePeers() == ["alice"] }
        try alice.stop()
        try bob.stop()

        // Bob alone, with no static peer: he redials alice's remembered address with a
        // growing backoff (1, 2, 4, 8 s …): after his fourth failed dial the next is 8 s off.
        let aliceShort = String(alice.key.prefix(8))
        let mark = bob.logMark()
        try bob.start(discovery: false)
        try await bob.waitForLog(
            "static peer \(alice.key)@127.0.0.1:\(alicePort) as \(aliceShort): ", count: 4, after: mark)
        try alice.start(listenPort: alicePort, discovery: false)
        #expect(try bob.cli(["resync"]).status == 0)
        try await waitUntil(timeout: 30, "bob to reach alice") { try bob.onlinePeers() == ["alice"] }
        // The dial came from the resync, not from the backoff loop.
        #expect(bob.log(after: mark).contains("resync: dialling \(aliceShort) at 127.0.0.1:\(alicePort)"))
    }

    @Test func resyncWithoutANodeSaysHowToStartOne() throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root)
        let result = try alice.cli(["resync"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no node is running"))
        #expect(result.stderr.contains("confab up"))
    }

    @Test func partitionWithWritesOnEverySideHealsToIdenticalHistories() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let nodes = try ["alice", "bob", "carol"].map { try NodeProcess(name: $0, root: root, discovery: discovery) }
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])
        defer { for node in nodes { try? node.stop() } }
        for node in nodes { try node.start() }
        try await waitUntil(timeout: 30, "a full mesh") { try nodes.allSatisfy { try $0.onlinePeers().count == 2 } }
        let group = try alice.cli(["new", "bob", "carol", "--title", "p", "--message", "before", "--json"])
        let id = try #require((try group.json() as? [String: Any])?["id"] as? String)
        func texts(_ node: NodeProcess) throws -> [String] {
            let history = try node.cli(["history", id, "--json", "--no-mark-read", "--limit", "1000"])
            return ((try? history.json()) as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
        }
        try await waitUntil(timeout: 30, "the first message everywhere") {
            try nodes.allSatisfy { try texts($0) == ["before"] }
        }

        // Cut carol off: her node stops; everyone keeps writing, carol offline.
        try carol.stop()
        for n in 1...3 {
            #expect(try alice.cli(["send", id, "alice \(n)"]).status == 0)
            #expect(try bob.cli(["send", id, "bob \(n)"]).status == 0)
            #expect(try carol.cli(["send", id, "carol \(n)"]).status == 0)
        }
        try carol.start()
        try await waitUntil(timeout: 60, "identical histories after the heal") {
            let reference = try texts(alice)
            return try reference.count == 10 && texts(bob) == reference && texts(carol) == reference
        }
    }

    @Test func watchStreamsMessagesStatusAndPresence() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discovery: discovery)
        let bob = try NodeProcess(name: "bob", root: root, discovery: discovery)
        defer {
            try? alice.stop()
            try? bob.stop()
        }
        try alice.start()
        let watch = try EventWatch(alice)
        defer { watch.stop() }
        try await watch.waitUntilSubscribed()

        try bob.start()
        try await waitUntil(timeout: 30, "alice to see bob") { try alice.onlinePeers() == ["bob"] }
        #expect(try bob.cli(["send", "alice", "watch this"]).status == 0)
        #expect(try alice.cli(["send", "bob", "and this", "--wait", "--timeout", "30"]).status == 0)
        try bob.stop()

        try await watch.waitFor("message, status and presence events") { events in
            let kinds = Set(events.compactMap { $0["event"] as? String })
            let texts = events.compactMap { ($0["message"] as? [String: Any])?["text"] as? String }
            return kinds.isSuperset(of: ["peer_online", "message", "status", "peer_offline"])
                && texts.contains("watch this") && texts.contains("and this")
        }
        let statuses = watch.events.compactMap { $0["status"] as? String }
        #expect(statuses.contains("delivered"))
    }

    @Test func secondNodeOnTheSameDataDirectoryIsRefused() async throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root, discovery: try DiscoveryPort())
        defer { try? alice.stop() }
        try alice.start()
        let second = try alice.cli(["up", "--no-discovery", "--listen", "127.0.0.1:0"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("a node is already running"))
        #expect(second.stderr.contains("pid \(alice.process!.processIdentifier)"))
    }

    @Test func statusShowsSessionsAndOutbox() async throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root, discovery: try DiscoveryPort())
        let offline = try alice.cli(["status"])
        #expect(offline.stdout.contains("Offline — no node is running"))
        defer { try? alice.stop() }
        try alice.start()
        let status = try #require(try alice.cli(["status", "--json"]).json() as? [String: Any])
        #expect(status["name"] as? String == "alice")
        #expect((status["sessions"] as? [Any])?.isEmpty == true)
        #expect(try alice.cli(["status"]).stdout.contains("Offline — messages will be sent when a peer is reachable"))
    }
}
