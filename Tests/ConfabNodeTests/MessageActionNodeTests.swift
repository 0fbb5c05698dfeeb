import Foundation
import Testing

/// Edit and delete for everyone between two real `confab up` processes on 127.0.0.1
/// (discovery off, a static peer), driven through the CLI as a person or a script would:
/// `confab edit`, `confab unsend`, `history --json`, `watch --json`, `search`.
@Suite(.serialized) struct MessageActionNodeTests {
    private func history(_ node: NodeProcess, _ peer: String) throws -> [[String: Any]] {
        let result = try node.cli(["history", peer, "--json", "--no-mark-read"])
        return (try? result.json() as? [[String: Any]]) ?? []
    }

    @Test func editAndUnsendReachTheOtherNodeAndItsWatchSearchAndHistory() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root)
        let (alice, bob) = (nodes[0], nodes[1])
        defer { for node in nodes { try? node.stop() } }
        try alice.start(discovery: false)
        try bob.start(discovery: false, extra: ["--peer", alice.address])
        let watch = try EventWatch(bob)
        defer { watch.stop() }
        try await watch.waitUntilSubscribed()

        #expect(try alice.cli(["send", "bob", "lunch at noon", "--wait", "--timeout", "30"]).status == 0)
        try await waitUntil(timeout: 30, "bob to have the message") {
            try bob.texts(with: "alice") == ["lunch at noon"]
        }

        // Edit, through the running node (JSON answer names the message and the new entry).
        let edited = try alice.cli(["edit", "bob", "--last", "lunch at one", "--json"])
        #expect(edited.status == 0, "\(edited.stderr)")
        let action = try #require(try edited.json() as? [String: Any])
        let target = try #require(action["target"] as? Int)
        #expect(action["seq"] as? Int == target + 1)
        try await waitUntil(timeout: 30, "bob to show the edit") {
            try history(bob, "alice").first?["text"] as? String == "lunch at one"
        }
        let shown = try #require(try history(bob, "alice").first)
        #expect(shown["seq"] as? Int == target)
        #expect(shown["editedAt"] is String)
        #expect((shown["edits"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["lunch at noon"])
        #expect(try bob.cli(["history", "alice", "--no-mark-read"]).stdout.contains("(edited)"))
        try await watch.waitFor("an edited event") { events in
            events.contains {
                $0["event"] as? String == "edited"
                    && ($0["message"] as? [String: Any])?["text"] as? String == "lunch at one"
            }
        }
        #expect(try bob.cli(["search", "noon", "--json"]).stdout.contains("lunch") == false)
        #expect(try bob.cli(["search", "one", "--json"]).stdout.contains("lunch at one"))

        // Bob cannot edit or delete Alice's message: it is not his.
        let hijack = try bob.cli(["edit", "alice", "--seq", "\(target)", "hijacked"])
        #expect(hijack.status != 0)
        #expect(hijack.stderr.contains("no message of yours"))
        #expect(try bob.cli(["unsend", "alice", "--seq", "\(target)", "--yes"]).status != 0)

        // Delete for everyone: refused without --yes off a terminal, done with it.
        let unconfirmed = try alice.cli(["unsend", "bob", "--last"])
        #expect(unconfirmed.status != 0)
        #expect(unconfirmed.stderr.contains("--yes"))
        let unsent = try alice.cli(["unsend", "bob", "--seq", "\(target)", "--yes", "--json"])
        #expect(unsent.status == 0, "\(unsent.stderr)")
        try await waitUntil(timeout: 30, "bob to show the deletion") {
            try history(bob, "alice").first?["deleted"] as? Bool == true
        }
        let deleted = try #require(try history(bob, "alice").first)
        #expect(deleted["text"] == nil)
        #expect(deleted["edits"] == nil)
        #expect(try bob.cli(["history", "alice", "--no-mark-read"]).stdout.contains("message deleted"))
        #expect(try bob.cli(["search", "lunch", "--json"]).stdout.contains("lunch") == false)
        try await watch.waitFor("a deleted event") { events in
            events.contains { $0["event"] as? String == "deleted" }
        }
        // Nothing left to act on, and the logs still verify on both sides.
        #expect(try alice.cli(["edit", "bob", "--last", "again"]).status != 0)
        #expect(try history(alice, "bob").first?["deleted"] as? Bool == true)
    }
}
