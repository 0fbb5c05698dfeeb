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
            return count + entries.filter { (try? EntryCodec.decodeUnverified($0))?.author == author }.count
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
    /// a person with no session to the author gets it only when the relay's timer announces,
    /// and asks for it as soon as the graft delay is over: no author's push to wait for.
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
        let asked = { harness.log.filter { $0.from == self.carol.id && $0.message.isRequest }.count }
        let before = asked()
        try harness.tick(relay, by: SyncEngine.lazyDelay)
        try harness.tick(carol, by: .seconds(1))
        #expect(asked() == before + 1)
        #expect(try carol.store.texts(id) == ["hello", "via the relay"])
    }

    /// Entries of `author` carried to `to` from anyone.
    private func received(of author: NodeID, by to: NodeID) -> Int {
        harness.log.filter { $0.to == to }.reduce(0) { count, item in
            guard case .entries(let entries) = item.message else { return count }
            return count + entries.filter { (try? EntryCodec.decodeUnverified($0))?.author == author }.count
        }
    }

    /// The three in a full mesh, and a group of them that every one holds.
    private func meshedGroup() throws -> ConversationID {
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id])
        try harness.run()
        return id
    }

    /// Alice writes `text`, and her push of it to carol is lost; the others' go through.
    private func losePushToCarol(_ text: String, in id: ConversationID) throws {
        let lost = try alice.store.sendMessage(text, to: id)
        harness.loses = { from, to, message in
            guard case .entries = message else { return false }
            return from == lost.author && to == self.carol.id
        }
        try harness.wrote([lost], at: alice)
        try harness.runWithoutTimers()
        harness.loses = nil
    }

    /// Plumtree's graft: a push lost on the way is noticed from another member's clock and
    /// asked for once, from one member that holds it.
    @Test func aNodeThatMissedTheEagerPushAsksForTheEntryOnce() throws {
        let id = try meshedGroup()
        let before = received(of: alice.id, by: carol.id)
        try losePushToCarol("lost on the way to carol", in: id)
        #expect(try carol.store.texts(id).isEmpty, "the push was lost")
        try harness.run()
        #expect(try carol.store.texts(id) == ["lost on the way to carol"])
        #expect(received(of: alice.id, by: carol.id) - before == 1, "asked from one holder only")
    }

    /// Requests carol sent to anyone so far.
    private var carolsRequests: Int {
        harness.log.filter { $0.from == carol.id && $0.message.isRequest }.count
    }

    /// What a node lacks of a log whose author has a session with it comes by the author's
    /// push: another holder is asked only once `authorPushWait` passed without it, so that a
    /// busy node does not get a second copy of what is still in its socket.
    @Test func aLackWhoseAuthorHasASessionWaitsForItsPushBeforeAskingAnother() throws {
        let id = try meshedGroup()
        try losePushToCarol("late to carol", in: id)
        try harness.tick(bob, by: SyncEngine.lazyDelay)
        #expect(try bob.store.texts(id) == ["late to carol"] && carol.store.texts(id).isEmpty)
        let before = carolsRequests
        try harness.tick(carol, by: .seconds(1))
        try harness.tick(carol, by: .seconds(1))
        #expect(carolsRequests == before, "asked while alice's push could still come")
        #expect(try carol.store.texts(id).isEmpty)
        try harness.tick(carol, by: .seconds(1))
        #expect(carolsRequests == before + 1)
        #expect(try carol.store.texts(id) == ["late to carol"])
    }

    /// An author whose push is arriving is waited for past `authorPushWait` from the lack's
    /// start: the wait counts from its last push stored.
    @Test func anAuthorWhosePushIsArrivingIsWaitedForLonger() throws {
        let id = try meshedGroup()
        let written = try bob.store.sendEach(["one", "two"], to: id)
        let raw = written.map { EntryCodec.encode($0) }
        let requests = { (output: SyncOutput) in
            output.pushes.values.joined().filter(\.isRequest).count
        }
        // Carol says she holds both; bob's push of them has not come (nothing delivered).
        _ = try alice.engine.handle(
            .clocks([.init(conversation: id, clock: try bob.store.clock(of: id))]), from: carol.id)
        alice.clock.advance(by: .milliseconds(2500))
        #expect(requests(try alice.engine.tick()) == 0)
        _ = try alice.engine.handle(.entries([raw[0]]), from: bob.id)
        alice.clock.advance(by: .seconds(1))
        #expect(requests(try alice.engine.tick()) == 0, "bob pushed a second ago")
        alice.clock.advance(by: .seconds(2))
        #expect(requests(try alice.engine.tick()) == 1, "bob's push stopped 3 s ago")
    }

    /// An acknowledgement or an announcement is not a request: it gets the peer this node's
    /// own entries it lacks, never another author's, which are on their way from their
    /// author; a request gets every author's.
    @Test func onlyARequestBringsAnotherAuthorsEntries() throws {
        harness.connect(alice, bob)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "from alice")
        try harness.run()
        bob.engine.peerConnected(carol.id)
        _ = try bob.engine.handle(.hello(.init(displayName: "carol", role: .person, listenPort: 1)), from: carol.id)
        let empty = [SessionMessage.ConversationClock(conversation: id, clock: VectorClock())]
        let acknowledgement = try bob.engine.handle(.clocks(empty), from: carol.id)
        #expect(authors(in: acknowledgement).allSatisfy { $0 == bob.id }, "bob's own receipt at most")
        let request = try bob.engine.handle(.request(empty), from: carol.id)
        #expect(authors(in: request).filter { $0 == alice.id }.count == 2)
    }

    private func authors(in output: SyncOutput) -> [NodeID] {
        output.replies.flatMap { message -> [NodeID] in
            guard case .entries(let entries) = message else { return [] }
            return entries.compactMap { try? EntryCodec.decodeUnverified($0).author }
        }
    }

    /// A peer whose Hello does not list "requests" (an earlier implementation) asks with
    /// every Clocks, and is answered as before.
    @Test func aPeerWithoutTheRequestsFeatureIsAnsweredOnEveryClock() throws {
        harness.connect(alice, bob)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "from alice")
        try harness.run()
        bob.engine.peerConnected(carol.id)
        _ = try bob.engine.handle(
            .hello(.init(features: [], displayName: "carol", role: .person, listenPort: 1)), from: carol.id)
        let output = try bob.engine.handle(
            .clocks([.init(conversation: id, clock: VectorClock())]), from: carol.id)
        #expect(authors(in: output).filter { $0 == alice.id }.count == 2)
    }

    @Test func aLinkCutMidBurstIsHealedThroughTheOthers() throws {
        alice.engine.configuration.batchSize = 10
        let id = try meshedGroup()
        let burst = try alice.store.sendEach((0..<200).map { "m\($0)" }, to: id)
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

    /// Someone who connects asks for everything with its first clocks (a request), so it
    /// gets even what reached the relay a moment ago at once, without waiting for a timer.
    @Test func aPeerThatConnectsGetsWhatOnlyJustReachedTheRelayAtOnce() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        harness.add(relay)
        harness.connect(alice, relay)
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "just now")
        try harness.runWithoutTimers()
        harness.disconnect(alice, relay)
        harness.connect(bob, relay)
        try harness.runWithoutTimers()
        #expect(try bob.store.texts(id) == ["just now"])
    }
}

extension SessionMessage {
    fileprivate var isRequest: Bool { if case .request = self { true } else { false } }
}
