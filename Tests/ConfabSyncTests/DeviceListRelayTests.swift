import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

/// Relays carry everything for every device of a person (issue 33): a relay keeps the lists
/// of the members of the conversations it carries and passes them to those members, so a
/// device linked while its person's other machines are away gets the history from the relay,
/// and its writes reach a contact who never met it or its person's other machines since.
@Suite struct DeviceListRelayTests {
    @Test func aLaptopLinkedWhileTheDesktopIsAwayReadsAndIsReadThroughARelay() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        let laptop = try SyncHarness.Node(name: "laptop", seed: 0x1A)
        harness.add(relay)
        harness.add(laptop)
        // Bob writes to Alice through the relay; Alice reads it there and goes away.
        let (id, _) = try bob.store.createConversation(with: [alice.id], firstMessage: "one")
        harness.connect(bob, relay)
        try harness.run()
        harness.disconnect(bob, relay)
        // Alice links her laptop (the grant brings her list and keys), syncs with the relay
        // and goes away: the relay holds her list now.
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        harness.connect(alice, relay)
        try harness.run()
        #expect(try alice.store.texts(id) == ["one"])
        #expect(try relay.store.deviceList(of: alice.id).count == 1)
        harness.disconnect(alice, relay)
        try laptop.store.takeLink(
            person: alice.id, list: try alice.store.deviceList(of: alice.id).entries.map(DeviceEntryCodec.encode),
            displayName: "Alice", keys: try alice.store.epochKeys())

        // The laptop meets only the relay: it gets the conversation and reads it.
        harness.connect(laptop, relay)
        try harness.run()
        #expect(try laptop.store.texts(id) == ["one"])
        try harness.wrote(try laptop.store.sendEach(["from the laptop"], to: id), at: laptop)
        try harness.run()
        harness.disconnect(laptop, relay)

        // Bob meets only the relay: Alice's list comes first, then the laptop's reply, Alice's.
        harness.connect(bob, relay)
        try harness.run()
        #expect(try bob.store.deviceList(of: alice.id).count == 1)
        let reply = try #require(try bob.store.history(id).first { $0.text == "from the laptop" })
        #expect(reply.authorName != "You" && !reply.isMine)
        #expect(try bob.store.history(id).filter { !$0.isSystemLine }.map(\.text) == ["one", "from the laptop"])
        #expect(harness.misbehavior.isEmpty)
    }

    @Test func aRelayTellsAPeerNoListOfAPersonItDoesNotMeetThere() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        let laptop = try SyncHarness.Node(name: "laptop", seed: 0x1A)
        harness.add(relay)
        harness.add(laptop)
        _ = try alice.store.createConversation(with: [bob.id], firstMessage: "hi bob")
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        harness.connect(alice, relay)
        try harness.run()
        #expect(try relay.store.deviceList(of: alice.id).count == 1)
        // Carol shares nothing with Alice: the relay sends her no list of Alice's, while it
        // does send Bob's session one (the positive that shows lists flow at all).
        harness.connect(carol, relay)
        harness.connect(bob, relay)
        try harness.run()
        #expect(try bob.store.deviceList(of: alice.id).count == 1)
        #expect(try carol.store.deviceList(of: alice.id).isEmpty)
        let toCarol = harness.log.filter { $0.to == carol.id }.map(\.message)
        #expect(!toCarol.contains { if case .deviceList = $0 { true } else { false } })
    }
}

/// A device greeted before its person's list named it (the laptop's node connected before
/// the desktop's noticed the list that `devices link` wrote beside it) is offered what its
/// person is as soon as the list is held, without a new session. Found by
/// DeviceRemovalNodeTests timing out, 1 run in 7, on "the laptop to have Bob's message".
@Suite struct DeviceGreetedBeforeItsListTests {
    @Test func theDesktopOffersTheLaptopBobsConversationWhenItsListGrows() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let laptop = try SyncHarness.Node(name: "laptop", seed: 0x1A)
        harness.add(laptop)
        let (id, _) = try bob.store.createConversation(with: [alice.id], firstMessage: "one")
        harness.connect(alice, bob)
        try harness.run()
        // The laptop in session with the desktop as a stranger; then the link: the list
        // written beside the desktop's running engine, the grant taken by the laptop.
        harness.connect(alice, laptop)
        try harness.run()
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        try laptop.store.takeLink(
            person: alice.id, list: try alice.store.deviceList(of: alice.id).entries.map(DeviceEntryCodec.encode),
            displayName: "Alice", keys: try alice.store.epochKeys())
        try harness.run()
        // Quiet, and the laptop, greeted as nobody's, holds nothing of Bob's conversation.
        #expect((try? laptop.store.texts(id)) == nil)
        // The desktop's node notices the list another process wrote.
        try harness.listGrewElsewhere(at: alice)
        try harness.run()
        #expect(try laptop.store.texts(id) == ["one"])
        #expect(harness.misbehavior.isEmpty)
    }
}
