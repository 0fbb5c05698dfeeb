import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// Protocol.md §12.5: entries go eagerly from their author, lazily from everyone else, and
/// whatever the eager path misses, the lazy one heals.
@Suite struct DisseminationTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
    }

    /// Entries of `author` carried in Entries messages from `from` to `to`.
    private func carried(of author: NodeID, from: NodeID, to: NodeID) -> Int {
        harness.log.filter { $0.from == from && $0.to == to }.reduce(0) { count, item in
            guard case .entries(let entries) = item.message else { return count }
            return count + entries.filter { (try? EntryCodec.decode($0))?.author == author }.count
        }
    }

    @Test func inAFullMeshEachMemberGetsAnEntryFromItsAuthorOnly() throws {
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id])
        try harness.wrote([try alice.store.sendMessage("setup", to: id)], at: alice)
        try harness.run()
        let before = carried(of: alice.id, from: bob.id, to: carol.id)
        let burst = try alice.store.sendMessages((0..<50).map { "burst \($0)" }, to: id)
        try harness.wrote(burst, at: alice)
        try harness.run()
        #expect(try carol.store.texts(id).count == 51 && bob.store.texts(id).count == 51)
        #expect(carried(of: alice.id, from: bob.id, to: carol.id) == before, "bob pushed alice's entries on to carol")
    }

    /// Through a relay (which writes nothing of its own, so nothing drags the entry along),
    /// a person with no session to the author gets it only when the relay's timer announces.
    @Test func aNodeWithoutASessionToTheAuthorGetsEntriesByTheLazyPath() throws {
        let harness = SyncHarness()
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        for node in [alice, relay, carol] { harness.add(node) }
        harness.connect(alice, relay)
        harness.connect(relay, carol)
        let (id, _) = try alice.store.createConversation(with: [carol.id], firstMessage: "hello")
        try harness.run()
        #expect(try carol.store.texts(id) == ["hello"])
        try harness.wrote([try alice.store.sendMessage("via the relay", to: id)], at: alice)
        try harness.runWithoutTimers()
        #expect(try relay.store.clock(of: id)[alice.id] == 3)
        #expect(try carol.store.texts(id) == ["hello"], "the relay waits for its timer before announcing")
        try harness.run()
        #expect(try carol.store.texts(id) == ["hello", "via the relay"])
    }

    @Test func aLinkCutMidBurstIsHealedThroughTheOthers() throws {
        alice.engine.batchSize = 10
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id])
        try harness.run()
        let burst = try alice.store.sendMessages((0..<200).map { "m\($0)" }, to: id)
        try harness.wrote(burst, at: alice)
        try harness.run(limit: 8)
        harness.disconnect(alice, carol)
        try harness.run()
        #expect(try carol.store.texts(id) == (0..<200).map { "m\($0)" })
        #expect(try carol.store.clock(of: id)[alice.id] == bob.store.clock(of: id)[alice.id])
    }
}

@Suite struct RelayHandOverTests {
    @Test func aRelayHandsOverWhatItHoldsToSomeoneWhoArrivesLater() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        harness.add(relay)
        harness.connect(alice, relay)
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "while you were away")
        try harness.run()
        #expect(try relay.store.clock(of: id)[alice.id] == 2)
        harness.disconnect(alice, relay)
        harness.connect(bob, relay)
        try harness.run()
        #expect(try bob.store.texts(id) == ["while you were away"])
    }

    /// Someone who asks for entries that reached the relay a moment ago gets them once the
    /// lazy delay is over, without asking again.
    @Test func whatWasHeldBackFromAnAskingPeerIsSentOnTheTimer() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        harness.add(relay)
        harness.connect(alice, relay)
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "just now")
        try harness.runWithoutTimers()
        harness.disconnect(alice, relay)
        harness.connect(bob, relay)
        try harness.runWithoutTimers()
        #expect(try bob.store.conversation(id) == nil, "held back: it had only just reached the relay")
        try harness.run()
        #expect(try bob.store.texts(id) == ["just now"])
    }
}
