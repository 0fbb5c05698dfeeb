import ConfabClient
import ConfabNode
import ConfabTestSupport
import Foundation
import Testing

/// Trust on real `confab up` processes on 127.0.0.1: a name claimed by a second key, and
/// blocking and unblocking a peer while the nodes run.
@Suite(.serialized) struct TrustNodeTests {
    @Test func aSecondKeyUsingAKnownNameIsAnotherPeerWithAWarning() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discovery: discovery)
        let bob = try NodeProcess(name: "bob", root: root, discovery: discovery)
        let impostor = try NodeProcess(name: "impostor", root: root, discovery: discovery, displayName: "bob")
        defer { for node in [alice, bob, impostor] { try? node.stop() } }
        try alice.start()
        try bob.start()
        try await waitUntil(timeout: 30, "alice and bob to connect") { try alice.onlinePeers() == ["bob"] }
        let sent = try alice.cli(["send", "bob", "for the real bob", "--wait", "--timeout", "30"])
        #expect(sent.status == 0, "\(sent.stderr)")

        try impostor.start()
        try await waitUntil(timeout: 30, "alice to meet the second key") { try alice.sessionKeys().count == 2 }
        let peers = try alice.listedPeers()
        let claimed = try #require(peers[impostor.key])
        #expect(claimed["name"] as? String == "bob (\(impostor.key.prefix(8)))")
        #expect((claimed["warning"] as? String)?.contains("introduced itself as \"bob\"") == true)
        #expect(claimed["trust"] as? String == "unverified")
        let real = try #require(peers[bob.key])
        #expect(real["name"] as? String == "bob")
        #expect(real["warning"] == nil)
        #expect(try alice.cli(["peers"]).stdout.contains("⚠ introduced itself as \"bob\""))
        #expect(alice.log.contains("new key \(impostor.key.prefix(8)) introduced itself as \"bob\""))

        // The name still means the first key; the second is reached by its key prefix.
        #expect(try alice.cli(["send", "bob", "still you?", "--wait", "--timeout", "30"]).status == 0)
        let toImpostor = try alice.cli(["send", String(impostor.key.prefix(12)), "who are you?", "--wait"])
        #expect(toImpostor.status == 0, "\(toImpostor.stderr)")
        #expect(try alice.texts(with: "bob") == ["for the real bob", "still you?"])
        #expect(try bob.texts(with: "alice") == ["for the real bob", "still you?"])
        #expect(try impostor.texts(with: "alice") == ["who are you?"])
        // Their safety numbers differ, so comparing them exposes the impostor.
        let numbers = try [bob.key, impostor.key].map { key in
            try #require(
                (try alice.cli(["verify", key, "--json"]).json() as? [String: Any])?["safetyNumber"] as? String)
        }
        #expect(numbers[0] != numbers[1])
        #expect(try bob.cli(["verify", "alice", "--json"]).stdout.contains(numbers[0]))
    }

    @Test func aBlockedPeerCannotHoldASessionAndItsMessagesStayHiddenUntilUnblocked() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let nodes = try ["alice", "bob", "carol"].map { try NodeProcess(name: $0, root: root, discovery: discovery) }
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])
        defer { for node in nodes { try? node.stop() } }
        for node in nodes { try node.start() }
        try await waitUntil(timeout: 30, "a full mesh") { try nodes.allSatisfy { try $0.onlinePeers().count == 2 } }
        let group = try carol.cli(["new", "alice", "bob", "--title", "trio", "--message", "group start", "--json"])
        let id = try #require((try group.json() as? [String: Any])?["id"] as? String)
        func groupTexts(_ node: NodeProcess) throws -> [String] {
            let history = try node.cli(["history", id, "--json", "--no-mark-read"])
            return ((try? history.json()) as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
        }
        try await waitUntil(timeout: 30, "the group everywhere") {
            try nodes.allSatisfy { try groupTexts($0).count == 1 }
        }
        // A thread of their own, so "send alice" and "history bob" mean it, not the group.
        #expect(try bob.cli(["new", "alice", "--message", "before the block"]).status == 0)
        try await waitUntil(timeout: 30, "alice to have bob's message") {
            try alice.texts(with: "bob") == ["before the block"]
        }

        let block = alice.logMark()
        let blocked = try alice.cli(["block", "bob"])
        #expect(blocked.status == 0, "\(blocked.stderr)")
        try await waitUntil(timeout: 30, "the session with bob to close on both sides") {
            try !alice.sessionKeys().contains(bob.key) && !bob.sessionKeys().contains(alice.key)
        }
        // Bob keeps hearing alice's beacons and dialling; none of it becomes a session: alice
        // refuses his key in the handshake, again on his next try (2 s later: he backs off).
        try await alice.waitForLog(
            "reason=refused the key \(bob.key.prefix(8)) after the handshake proved it",
            "closing connection: handshake failed", count: 2, after: block)
        #expect(try !alice.sessionKeys().contains(bob.key))
        #expect(try !bob.sessionKeys().contains(alice.key))
        #expect(try alice.listedPeers()[bob.key]?["connected"] as? Bool == false)
        #expect(try alice.listedPeers()[bob.key]?["trust"] as? String == "blocked")
        #expect(try alice.sessionKeys() == [carol.key])

        let watch = try EventWatch(alice)
        defer { watch.stop() }
        try await watch.waitUntilSubscribed()

        // Bob writes to alice directly and to the group; carol carries the group message to
        // alice, whose node stores it but shows it nowhere.
        #expect(try bob.cli(["send", "alice", "while blocked"]).status == 0)
        #expect(try bob.cli(["send", id, "bob in the group"]).status == 0)
        try await waitUntil(timeout: 30, "carol to have bob's group message") {
            try groupTexts(carol).contains("bob in the group")
        }
        #expect(try carol.cli(["send", id, "carol after bob", "--wait", "--timeout", "30"]).status == 0)
        try await waitUntil(timeout: 30, "alice to have carol's message") {
            try groupTexts(alice).contains("carol after bob")
        }
        #expect(try groupTexts(alice) == ["group start", "carol after bob"])
        try await watch.waitFor("the watch event for carol's message") { _ in
            watch.messageTexts.contains("carol after bob")
        }
        let watched = watch.text
        #expect(!watched.contains("bob in the group") && !watched.contains("while blocked"))
        // Everything bob wrote is hidden, what came before the block included.
        #expect(try alice.texts(with: "bob").isEmpty)
        let list = try #require(try alice.cli(["list", "--json"]).json() as? [[String: Any]])
        let row = try #require(list.first { $0["id"] as? String == id })
        #expect((row["lastMessage"] as? [String: Any])?["text"] as? String == "carol after bob")
        #expect(row["unread"] as? Int == 2)
        let search = try #require(try alice.cli(["search", "while", "group", "--json"]).json() as? [Any])
        #expect(search.isEmpty)

        let unblocked = try alice.cli(["unblock", "bob"])
        #expect(unblocked.status == 0, "\(unblocked.stderr)")
        try await waitUntil(timeout: 30, "alice and bob to connect again") { try alice.sessionKeys().contains(bob.key) }
        try await waitUntil(timeout: 30, "bob's messages to show") {
            try alice.texts(with: "bob") == ["before the block", "while blocked"]
                && groupTexts(alice).contains("bob in the group")
        }
        #expect(try groupTexts(alice).count == 3)
    }
}
