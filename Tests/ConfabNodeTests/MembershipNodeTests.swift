import ConfabTestSupport
import Foundation
import Testing

/// Group membership between real `confab up` processes on 127.0.0.1, driven through the
/// CLI (Protocol.md §4.8): add (with and without history), remove by the admin, leave, the
/// removed node's store, names that travel with the membership, and two changes made on
/// two sides of a partition converging.
@Suite(.serialized) struct MembershipNodeTests {
    private func history(_ node: NodeProcess, _ id: String) throws -> [[String: Any]] {
        let result = try node.cli(["history", id, "--json", "--no-mark-read", "--limit", "1000"])
        return (try? result.json() as? [[String: Any]]) ?? []
    }

    private func texts(_ node: NodeProcess, _ id: String) throws -> [String] {
        try history(node, id).compactMap { $0["text"] as? String }
    }

    private func systemLines(_ node: NodeProcess, _ id: String) throws -> [String] {
        try history(node, id).compactMap { $0["system"] as? String }
    }

    private func members(_ node: NodeProcess, _ id: String) throws -> (names: [String], member: Bool) {
        let result = try node.cli(["members", id, "--json"])
        let list = (try? result.json() as? [String: Any]) ?? [:]
        let names = (list["members"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        return (names, list["member"] as? Bool ?? false)
    }

    /// Every byte of the node's data directory (database, WAL): what someone holding the
    /// removed member's disk could read.
    private func storeBytes(_ node: NodeProcess) throws -> Data {
        var all = Data()
        for file in try FileManager.default.contentsOfDirectory(atPath: node.data.path) where file.hasPrefix("confab") {
            all += (try? Data(contentsOf: node.data.appendingPathComponent(file))) ?? Data()
        }
        return all
    }

    @Test func addRemoveAndLeaveThroughTheCLI() async throws {
        let root = try temporaryRoot()
        let nodes = try ["alice", "bob", "carol", "dave"].map { try NodeProcess(name: $0, root: root) }
        let (alice, bob, carol, dave) = (nodes[0], nodes[1], nodes[2], nodes[3])
        defer { for node in nodes { try? node.stop() } }
        // A star: everyone meets alice only, so carol and dave learn bob's name from the
        // membership, never from a Hello of his.
        try alice.start(discovery: false)
        for node in [bob, carol, dave] { try node.start(discovery: false, extra: ["--peer", alice.peerAddress]) }
        try await waitUntil(timeout: 30, "alice to meet everyone") {
            try alice.onlinePeers() == ["bob", "carol", "dave"]
        }
        let group = try alice.cli(["new", "bob", "--title", "plans", "--message", "before", "--json"])
        let id = try #require((try group.json() as? [String: Any])?["id"] as? String)
        try await waitUntil(timeout: 30, "bob to have the group") { try texts(bob, id) == ["before"] }

        let added = try alice.cli(["add", id, "carol", "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try alice.cli(["send", id, "after carol"]).status == 0)
        try await waitUntil(timeout: 30, "carol to read from her joining on") {
            try texts(carol, id) == ["after carol"]
        }
        try await waitUntil(timeout: 30, "bob to read it too") { try texts(bob, id) == ["before", "after carol"] }
        #expect(try systemLines(bob, id) == ["alice added carol"])
        #expect(try systemLines(carol, id) == ["alice added You"])
        #expect(try members(carol, id).names == [alice.key, bob.key, carol.key])
        let bobAtCarol = try #require(try carol.listedPeers()[bob.key])
        #expect(bobAtCarol["name"] as? String == "bob", "the name came with the membership")

        // Dave gets the history too.
        #expect(try alice.cli(["add", id, "dave", "--history"]).status == 0)
        try await waitUntil(timeout: 30, "dave to read the history") {
            try texts(dave, id) == ["before", "after carol"]
        }

        // Only the admin removes: bob cannot remove carol, alice removes bob.
        let refused = try bob.cli(["remove", id, "carol"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("admin"))
        #expect(try alice.cli(["remove", id, "bob"]).status == 0)
        #expect(try alice.cli(["send", id, "bob cannot read this"]).status == 0)
        try await waitUntil(timeout: 30, "carol and dave to read it") {
            try texts(carol, id).last == "bob cannot read this" && texts(dave, id).last == "bob cannot read this"
        }
        try await waitUntil(timeout: 30, "bob to learn he was removed") { try !members(bob, id).member }
        #expect(try !texts(bob, id).contains("bob cannot read this"))
        #expect(try systemLines(bob, id).last == "alice removed You")
        let refusedSend = try bob.cli(["send", id, "still here?"])
        #expect(refusedSend.status != 0)
        // Bob's store holds no trace of it: not the text, and his node was never sent it.
        try bob.stop()
        #expect(try storeBytes(bob).range(of: Data("bob cannot read this".utf8)) == nil)
        #expect(try storeBytes(carol).isEmpty == false)

        // Carol leaves; the next message is sealed to alice and dave only.
        #expect(try carol.cli(["leave", id]).status == 0)
        try await waitUntil(timeout: 30, "alice to see carol leave") { try systemLines(alice, id).last == "carol left" }
        #expect(try alice.cli(["send", id, "just the two of us"]).status == 0)
        try await waitUntil(timeout: 30, "dave to read it") { try texts(dave, id).last == "just the two of us" }
        #expect(try members(dave, id).names == [alice.key, dave.key])
        // Carol's one session is with alice (the star), and a node handles a session's
        // messages in order: once carol holds a message alice sent her after the group's,
        // anything of the group's that alice pushed her has been handled too.
        #expect(try alice.cli(["send", "carol", "after the two of us"]).status == 0)
        try await waitUntil(timeout: 30, "carol to read alice's next message to her") {
            try carol.texts(with: "alice").last == "after the two of us"
        }
        #expect(try !texts(carol, id).contains("just the two of us"))
    }

    @Test func changesOnTwoSidesOfAPartitionConverge() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let nodes = try ["alice", "bob", "carol", "dave"].map {
            try NodeProcess(name: $0, root: root, discovery: discovery)
        }
        let (alice, bob, carol, dave) = (nodes[0], nodes[1], nodes[2], nodes[3])
        defer { for node in nodes { try? node.stop() } }
        for node in nodes { try node.start() }
        try await waitUntil(timeout: 30, "a full mesh") { try nodes.allSatisfy { try $0.onlinePeers().count == 3 } }
        let group = try alice.cli(["new", "bob", "carol", "--title", "p", "--message", "before", "--json"])
        let id = try #require((try group.json() as? [String: Any])?["id"] as? String)
        try await waitUntil(timeout: 30, "the group everywhere") {
            try [bob, carol].allSatisfy { try texts($0, id) == ["before"] }
        }

        // The partition: alice alone on one side removes carol; on the other, bob adds dave.
        try alice.stop()
        #expect(try bob.cli(["add", id, "dave"]).status == 0)
        try await waitUntil(timeout: 30, "dave to join on bob's side") {
            try members(dave, id).member && members(carol, id).names.contains(dave.key)
        }
        for node in [bob, carol, dave] { try node.stop() }
        #expect(try alice.cli(["remove", id, "carol"]).status == 0)

        // The partition heals.
        for node in nodes { try node.start() }
        let expected = [alice.key, bob.key, dave.key]
        try await waitUntil(timeout: 60, "the same members everywhere") {
            try [alice, bob, dave].allSatisfy { try members($0, id).names == expected }
                && !members(carol, id).member
        }
        // Neither side's key was sealed to these three: the next writer rekeys, and the
        // three read it; carol does not.
        #expect(try dave.cli(["send", id, "after the heal"]).status == 0)
        try await waitUntil(timeout: 60, "everyone in to read it") {
            try [alice, bob, dave].allSatisfy { try texts($0, id).last == "after the heal" }
        }
        #expect(try !texts(carol, id).contains("after the heal"))
        // The same history, system lines included, in the same order on every member.
        func order(_ node: NodeProcess) throws -> [String] { try history(node, id).compactMap { $0["id"] as? String } }
        let reference = try order(alice)
        #expect(try order(bob) == reference)
        #expect(try order(dave) == Array(reference.dropFirst()), "all but the message from before dave joined")
        #expect(try systemLines(alice, id) == ["bob added dave", "You removed carol"])
    }
}
