import Foundation
import Testing

/// Reactions, replies and mentions between real `confab up` processes on 127.0.0.1
/// (discovery off, static peers), driven through the CLI as a person or a script would:
/// `confab react`, `confab send --reply-to`, `history --json`, `watch --json`.
@Suite(.serialized) struct ReactionReplyNodeTests {
    private func history(_ node: NodeProcess, _ conversation: String) throws -> [[String: Any]] {
        let result = try node.cli(["history", conversation, "--json", "--no-mark-read"])
        return (try? result.json() as? [[String: Any]]) ?? []
    }

    private func message(_ node: NodeProcess, _ conversation: String, text: String) throws -> [String: Any]? {
        try history(node, conversation).first { ($0["text"] as? String)?.hasSuffix(text) == true }
    }

    @Test func reactReplyAndMentionReachTheGroupAndItsWatchAndHistory() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob", "carol"], root: root)
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])
        defer { for node in nodes { try? node.stop() } }
        try alice.start(discovery: false)
        try bob.start(discovery: false, extra: ["--peer", alice.address])
        try carol.start(discovery: false, extra: ["--peer", alice.address])
        let watch = try EventWatch(alice)
        defer { watch.stop() }
        try await watch.waitUntilSubscribed()

        let created = try alice.cli([
            "new", "bob", "carol", "--title", "Picnic", "--message", "who brings what?", "--json",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let id = try #require((try created.json() as? [String: Any])?["id"] as? String)
        for node in [bob, carol] {
            try await waitUntil(timeout: 30, "\(node.name) to have the question") {
                try message(node, id, text: "who brings what?") != nil
            }
        }
        let question = try #require(try message(bob, id, text: "who brings what?"))
        let questionID = try #require(question["id"] as? String)

        // Bob replies to it by its id, mentioning Carol; Carol reacts to it with "last".
        let replied = try bob.cli(["send", id, "--reply-to", questionID, "@carol and I bring cake", "--json"])
        #expect(replied.status == 0, "\(replied.stderr)")
        try await waitUntil(timeout: 30, "carol to have the reply") {
            try message(carol, id, text: "bring cake") != nil
        }
        let reaction = try carol.cli(["react", id, "last", "👍", "--json"])
        #expect(reaction.status == 0, "\(reaction.stderr)")
        let done = try #require(try reaction.json() as? [String: Any])
        #expect(done["emoji"] as? String == "👍" && done["removed"] as? Bool == false)
        let answerID = try #require(done["target"] as? String)
        #expect(answerID.contains("/\(bob.key)/"), "last is the newest message: Bob's reply")
        #expect(try carol.cli(["react", id, questionID, "❤", "--json"]).status == 0)

        // Alice's history: the reply quotes her question, mentions Carol, carries 👍;
        // the question carries ❤️.
        try await waitUntil(timeout: 30, "alice to show the reactions") {
            let shown = try history(alice, id)
            return shown.contains { ($0["reactions"] as? [[String: Any]])?.first?["emoji"] as? String == "👍" }
                && shown.contains { ($0["reactions"] as? [[String: Any]])?.first?["emoji"] as? String == "❤️" }
        }
        let answer = try #require(try message(alice, id, text: "bring cake"))
        let quoted = try #require(answer["replyTo"] as? [String: Any])
        #expect(quoted["id"] as? String == questionID)
        #expect(quoted["text"] as? String == "who brings what?")
        #expect((answer["mentions"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["carol"])
        #expect(answer["text"] as? String == "@carol and I bring cake")
        #expect(answer["mentionsMe"] == nil)
        let thumbs = try #require((answer["reactions"] as? [[String: Any]])?.first)
        #expect(thumbs["count"] as? Int == 1 && thumbs["mine"] as? Bool == false)
        #expect((thumbs["reactors"] as? [[String: Any]])?.first?["name"] as? String == "carol")
        #expect(try message(carol, id, text: "bring cake")?["mentionsMe"] as? Bool == true)
        // Human history: the quote above the reply, the reactions under it.
        let human = try alice.cli(["history", id, "--no-mark-read"]).stdout
        #expect(human.contains("↪ You: who brings what?"))
        #expect(human.contains("👍 1 carol"))
        #expect(human.contains("❤️ 1 carol"))
        try await watch.waitFor("a reaction event and the reply's message event") { events in
            events.contains {
                $0["event"] as? String == "reaction" && ($0["reaction"] as? [String: Any])?["emoji"] as? String == "👍"
                    && ($0["message"] as? [String: Any])?["id"] as? String == answerID
            }
                && events.contains {
                    $0["event"] as? String == "message"
                        && (($0["message"] as? [String: Any])?["replyTo"] as? [String: Any])?["id"] as? String
                            == questionID
                }
        }

        // Taken back: gone everywhere, and the watch says so.
        #expect(try carol.cli(["react", id, answerID, "👍", "--remove"]).status == 0)
        try await waitUntil(timeout: 30, "alice to show it taken back") {
            try message(alice, id, text: "bring cake")?["reactions"] == nil
        }
        try await watch.waitFor("the reaction taken back") { events in
            events.contains {
                $0["event"] as? String == "reaction" && ($0["reaction"] as? [String: Any])?["removed"] as? Bool == true
            }
        }

        // What cannot be done says why, and what to do.
        let missing = try bob.cli(["react", id, "\(bob.key)/99", "👍"])
        #expect(missing.status != 0 && missing.stderr.contains("history --json"), "\(missing.stderr)")
        let notEmoji = try bob.cli(["react", id, questionID, "yes"])
        #expect(notEmoji.status != 0 && notEmoji.stderr.contains("not one emoji"), "\(notEmoji.stderr)")
        let notMine = try bob.cli(["react", id, questionID, "👍", "--remove"])
        #expect(notMine.status != 0 && notMine.stderr.contains("have not reacted"), "\(notMine.stderr)")
        #expect(try bob.cli(["new", "alice", "--message", "just us"]).status == 0)
        let elsewhere = try bob.cli(["send", "alice", "--reply-to", questionID, "wrong thread"])
        #expect(
            elsewhere.status != 0 && elsewhere.stderr.contains("another conversation"),
            "a reply names a message of its own conversation: \(elsewhere.stderr)")
    }
}
