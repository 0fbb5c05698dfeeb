import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// Edits and deletions for everyone travel like messages (Protocol.md §4.5): through a relay
/// with author and reader never online together, and across a healed partition, every node
/// ends with the same texts, marks and trails in the same order.
@Suite struct MessageActionSyncTests {
    /// What a node shows of a conversation: order, text, edited, deleted, trail.
    private func shown(_ node: SyncHarness.Node, _ id: ConversationID) throws -> [String] {
        try node.store.history(id, limit: 1_000).map { message in
            "\(message.author.shortHex)/\(message.seq): \(message.isDeleted ? "<deleted>" : message.text ?? "?")"
                + (message.editedAt != nil ? " (edited)" : "") + " " + message.edits.map(\.text).joined(separator: "|")
        }
    }

    @Test func throughARelayWithAuthorAndReaderNeverOnlineTogether() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        harness.add(relay)
        harness.connect(alice, relay)
        let (id, first) = try alice.store.createConversation(with: [bob.id], firstMessage: "draft one")
        let target = try #require(first).seq
        let second = try alice.store.sendMessage("to be taken back", to: id)
        try harness.wrote(
            [
                try alice.store.editMessage(target, in: id, text: "draft two"),
                try alice.store.editMessage(target, in: id, text: "final"),
                try alice.store.unsendMessage(second.seq, in: id),
            ], at: alice)
        try harness.run()
        harness.disconnect(alice, relay)
        harness.connect(bob, relay)
        try harness.run()
        #expect(try shown(bob, id) == shown(alice, id))
        let message = try #require(try bob.store.history(id).first)
        #expect(message.text == "final")
        #expect(message.edits.map(\.text) == ["draft one", "draft two"])
        #expect(try bob.store.history(id).last?.isDeleted == true)
        #expect(try bob.store.search("back").isEmpty)
        // The relay holds the entries (ciphertext) and knows the message is deleted, so it
        // would refuse a later edit of it like any member.
        #expect(try relay.store.clock(of: id)[alice.id] == 6)
    }

    @Test func editsAndDeletionsOnBothSidesOfAPartitionHealToTheSameHistory() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id])
        let a = try alice.store.sendMessage("alice's", to: id)
        try harness.wrote([a], at: alice)
        try harness.run()
        let b = try bob.store.sendMessage("bob's", to: id)
        try harness.wrote([b], at: bob)
        try harness.run()

        // Alice alone on one side; Bob and Carol on the other.
        harness.disconnect(alice, bob)
        harness.disconnect(alice, carol)
        try harness.wrote([try alice.store.editMessage(a.seq, in: id, text: "alice's, edited")], at: alice)
        try harness.wrote([try alice.store.sendMessage("alice again", to: id)], at: alice)
        try harness.wrote([try bob.store.unsendMessage(b.seq, in: id)], at: bob)
        try harness.wrote([try carol.store.sendMessage("carol meanwhile", to: id)], at: carol)
        let again = try bob.store.sendMessage("bob again", to: id)
        try harness.wrote([again, try bob.store.editMessage(again.seq, in: id, text: "bob again, edited")], at: bob)
        try harness.run()
        #expect(try shown(bob, id) == shown(carol, id))
        #expect(try shown(alice, id) != shown(bob, id))

        harness.connect(alice, carol)
        try harness.run()
        let result = try shown(alice, id)
        #expect(try shown(bob, id) == result)
        #expect(try shown(carol, id) == result)
        #expect(result.contains { $0.hasSuffix(": alice's, edited (edited) alice's") })
        #expect(result.contains { $0.contains(": <deleted>") })
        #expect(result.contains { $0.hasSuffix(": bob again, edited (edited) bob again") })
        #expect(result.count == 5)
    }
}
