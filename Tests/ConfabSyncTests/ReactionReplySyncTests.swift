import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// Reactions, replies and mentions travel like messages (Protocol.md §4.5): through a relay
/// with author and reader never online together, across a healed partition to the same
/// result on every node, and an action that arrives before its target waits for it.
@Suite struct ReactionReplySyncTests {
    /// What a node shows: each message with its quote, its reactions and who it mentions.
    /// The text of one with mentions is each reader's own (its names), so it is left out.
    private func shown(_ node: SyncHarness.Node, _ id: ConversationID) throws -> [String] {
        try node.store.history(id, limit: 1_000).map { message in
            let text =
                message.isDeleted ? "<deleted>" : message.mentions.isEmpty ? message.text ?? "?" : "<mentions>"
            var line = "\(message.author.shortHex)/\(message.seq): \(text)"
            if let quote = message.replyTo {
                line += " ↪ \(quote.ref.author.shortHex)/\(quote.ref.seq) \(quote.summary)"
            }
            for group in message.reactions {
                line += " [\(group.emoji) " + group.reactors.map(\.id.shortHex).joined(separator: ",") + "]"
            }
            line += " @" + message.mentions.map(\.id.shortHex).joined(separator: ",")
            return line
        }
    }

    @Test func throughARelayWithSenderAndRecipientNeverOnlineTogether() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        harness.add(relay)
        try bob.store.savePeer(alice.id, name: "alice")
        try alice.store.setDisplayName("Alice")
        // Alice asks while Bob is away.
        harness.connect(alice, relay)
        let (id, first) = try alice.store.createConversation(with: [bob.id], firstMessage: "lunch at noon?")
        let question = MessageRef(author: alice.id, seq: try #require(first).seq)
        try harness.run()
        harness.disconnect(alice, relay)
        // Bob, with Alice gone, answers, reacts and mentions her.
        harness.connect(bob, relay)
        try harness.run()
        let answer = try bob.store.sendMessage("@alice yes, see you", to: id, replyTo: question)
        try harness.wrote(
            [
                answer,
                try bob.store.react("👍", to: question, in: id),
                try bob.store.react("🎉", to: question, in: id),
                try bob.store.react("🎉", to: question, in: id, removed: true),
            ], at: bob)
        try harness.run()
        harness.disconnect(bob, relay)
        // Alice comes back and finds it all.
        harness.connect(alice, relay)
        try harness.run()
        let result = try shown(alice, id)
        #expect(try shown(bob, id) == result)
        #expect(
            result == [
                "\(alice.id.shortHex)/2: lunch at noon? [👍 \(bob.id.shortHex)] @",
                "\(bob.id.shortHex)/\(answer.seq): <mentions> ↪ \(alice.id.shortHex)/2 lunch at noon? @\(alice.id.shortHex)",
            ])
        // Each draws the mention with its own name for Alice.
        #expect(try alice.store.history(id).last?.text == "@Alice yes, see you")
        #expect(try bob.store.history(id).last?.text == "@alice yes, see you")
        #expect(try alice.store.history(id).last?.mentionsMe == true)
        #expect(harness.misbehavior.isEmpty)
    }

    @Test func reactionsAndRepliesOnBothSidesOfAPartitionHealToTheSameResult() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        let (id, first) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "plan?")
        let plan = MessageRef(author: alice.id, seq: try #require(first).seq)
        try harness.run()
        try harness.wrote([try bob.store.react("👍", to: plan, in: id)], at: bob)
        try harness.run()

        harness.disconnect(alice, bob)
        harness.disconnect(alice, carol)
        // Alice alone: reacts twice, replies to herself, edits the plan.
        try harness.wrote(
            [
                try alice.store.react("❤️", to: plan, in: id),
                try alice.store.react("👍", to: plan, in: id),
                try alice.store.sendMessage("adding: bring water", to: id, replyTo: plan),
                try alice.store.editMessage(plan.seq, in: id, text: "plan for Sunday?"),
            ], at: alice)
        // Bob and Carol: Bob takes his 👍 back and reacts ❤️, Carol replies and reacts.
        try harness.wrote(
            [try bob.store.react("👍", to: plan, in: id, removed: true), try bob.store.react("❤️", to: plan, in: id)],
            at: bob)
        try harness.run()
        try harness.wrote(
            [
                try carol.store.sendMessage("count me in", to: id, replyTo: plan),
                try carol.store.react("❤️", to: plan, in: id),
            ],
            at: carol)
        try harness.run()
        #expect(try shown(bob, id) == shown(carol, id))
        #expect(try shown(alice, id) != shown(bob, id))

        harness.connect(alice, carol)
        try harness.run()
        let result = try shown(alice, id)
        #expect(try shown(bob, id) == result)
        #expect(try shown(carol, id) == result)
        let planLine = try #require(result.first)
        #expect(planLine.hasPrefix("\(alice.id.shortHex)/2: plan for Sunday? "))
        // ❤️ from three (most first), 👍 from Alice only: Bob's was taken back.
        #expect(planLine.contains("[❤️ "), "\(planLine)")
        #expect(planLine.hasSuffix("[👍 \(alice.id.shortHex)] @"), "\(planLine)")
        #expect(result.filter { $0.contains("↪ \(alice.id.shortHex)/2 plan for Sunday?") }.count == 2)
        #expect(harness.misbehavior.isEmpty)
    }

    @Test func aReactionOrReplyArrivingBeforeItsTargetAppliesOnceTheTargetArrives() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        harness.connect(alice, bob)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "first")
        try harness.run()
        // Carol holds the conversation but not yet Alice's next message.
        for bytes in try alice.store.entries(in: id, author: alice.id, after: 0) {
            _ = try carol.store.append(bytes)
        }
        let second = try alice.store.sendMessage("second", to: id)
        try harness.wrote([second], at: alice)
        try harness.run()
        let target = MessageRef(author: alice.id, seq: second.seq)
        let reply = try bob.store.sendMessage("about the second", to: id, replyTo: target)
        let reaction = try bob.store.react("👀", to: target, in: id)
        let bobs = try bob.store.entries(in: id, author: bob.id, after: 0)
        // Carol has sessions with both (said hello), and nothing moves unless handed here.
        for peer in [alice, bob] {
            carol.engine.peerConnected(peer.id)
            _ = try carol.engine.handle(
                .hello(.init(displayName: peer.name, role: .person, listenPort: 1)), from: peer.id)
        }
        // Bob's entries reach Carol first: they wait (their clocks name Alice's message).
        let early = try carol.engine.handle(.entries(bobs), from: bob.id)
        #expect(early.misbehavior == nil)
        let waiting = Set([reply.hash, reaction.hash])
        #expect(early.appended.allSatisfy { !waiting.contains($0.hash) })
        #expect(try carol.store.history(id).map(\.text) == ["first"])
        // Then Alice's message: it and what waited for it apply.
        let late = try carol.engine.handle(
            .entries(try alice.store.entries(in: id, author: alice.id, after: second.seq - 1)), from: alice.id)
        #expect(late.misbehavior == nil)
        #expect(Set(late.appended.map(\.hash)).isSuperset(of: waiting.union([second.hash])))
        let held = try carol.store.history(id)
        #expect(held.map(\.text) == ["first", "second", "about the second"])
        #expect(held[1].reactions.map(\.emoji) == ["👀"])
        #expect(held[2].replyTo?.ref == target)
        #expect(held[2].replyTo?.text == "second")
    }
}
