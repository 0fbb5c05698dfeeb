import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// Membership changes travel like any entry (Protocol.md §4.8, §12): an added node is
/// invited and takes the whole conversation, directly or through a relay; a removed node is
/// sent the conversation up to its removal and nothing after.
@Suite struct MembershipSyncTests {
    @Test func anAddedNodeIsInvitedAndTakesTheConversation() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "before carol")
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        try harness.run()
        try harness.wrote([try alice.store.changeMembers(of: id, add: [carol.id])], at: alice)
        try harness.run()
        try harness.wrote([try bob.store.sendMessage("welcome carol", to: id)], at: bob)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        for node in [alice, bob, carol] {
            #expect(try node.store.participants(of: id) == [alice.id, bob.id, carol.id])
            #expect(try node.store.clock(of: id) == alice.store.clock(of: id))
        }
        #expect(try carol.store.texts(id) == ["welcome carol"])
        #expect(try carol.store.conversations().map(\.id) == [id])
    }

    @Test func throughARelayWithAdderAndAddedNeverOnlineTogether() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        harness.add(relay)
        harness.connect(alice, relay)
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "hello bob")
        try harness.wrote(
            [
                try alice.store.changeMembers(of: id, add: [carol.id]),
                try alice.store.sendMessage("hello carol", to: id),
            ],
            at: alice)
        try harness.run()
        harness.disconnect(alice, relay)
        harness.connect(carol, relay)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(try carol.store.participants(of: id) == [alice.id, bob.id, carol.id])
        #expect(try carol.store.texts(id) == ["hello carol"])
    }

    @Test func aRemovedNodeIsSentNothingWrittenAfterItsRemoval() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "all three")
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        try harness.run()
        let removal = try alice.store.changeMembers(of: id, remove: [bob.id])
        try harness.wrote([removal], at: alice)
        try harness.run()
        let justUs = try alice.store.sendMessage("just us", to: id)
        try harness.wrote([justUs], at: alice)
        let indeed = try carol.store.sendMessage("just us indeed", to: id)
        try harness.wrote([indeed], at: carol)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(try bob.store.participants(of: id) == [alice.id, carol.id], "bob learnt of his removal")
        #expect(try carol.store.texts(id) == ["all three", "just us", "just us indeed"])
        #expect(try bob.store.texts(id) == ["all three"])
        // Bob holds exactly what the removal's author had seen: not even the ciphertext of
        // what came after.
        #expect(try bob.store.clock(of: id) == removal.frontier)
        #expect(try bob.store.clock(of: id)[alice.id] < justUs.seq)
        #expect(try bob.store.clock(of: id)[carol.id] < indeed.seq)
        // Bob's own node writes nothing more there.
        #expect(throws: StoreError.self) { try bob.store.sendMessage("hello?", to: id) }
    }
}

extension MembershipSyncTests {
    @Test func aStarThroughTheAdminCarriesEveryChange() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let dave = try SyncHarness.Node(name: "dave", seed: 4)
        harness.add(dave)
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "before")
        for node in [bob, carol, dave] { harness.connect(alice, node) }
        try harness.run()
        try harness.wrote([try alice.store.changeMembers(of: id, add: [carol.id])], at: alice)
        try harness.wrote([try alice.store.sendMessage("after carol", to: id)], at: alice)
        try harness.run()
        try harness.wrote([try alice.store.changeMembers(of: id, add: [dave.id], shareHistory: true)], at: alice)
        try harness.run()
        try harness.wrote([try alice.store.changeMembers(of: id, remove: [bob.id])], at: alice)
        try harness.wrote([try alice.store.sendMessage("bob cannot read this", to: id)], at: alice)
        try harness.run()
        try harness.wrote([try carol.store.leave(id)], at: carol)
        try harness.run()
        try harness.wrote(try alice.store.sendMessages(["just us"], to: id), at: alice)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(try dave.store.texts(id).last == "just us")
        #expect(try dave.store.clock(of: id) == alice.store.clock(of: id))
    }
}
