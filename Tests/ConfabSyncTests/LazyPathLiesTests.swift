import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

/// The lazy path (Protocol.md §12.5) acts on what a peer says it holds: its clocks decide
/// whom this node asks for what it lacks, and whom it announces to. A peer that
/// lies about either changes nothing for anyone but itself.
@Suite struct LazyPathLiesTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
    }

    private func entriesMessages(_ output: SyncOutput) -> Int {
        output.replies.filter { if case .entries = $0 { true } else { false } }.count
    }

    private func requests(_ output: SyncOutput, to peer: NodeID) -> [SessionMessage] {
        (output.pushes[peer] ?? []).filter { if case .request = $0 { true } else { false } }
    }

    /// "It holds more than I knew" makes this node ask that peer, after the graft delay
    /// (the author's push may be on its way): a peer inventing ever larger clocks gets one
    /// small request per claim, no entries, and no write; the same claim again gets nothing.
    @Test func aClockThatKeepsGrowingGetsOneSmallRequestEachAndNothingElse() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        harness.connect(alice, bob)
        try harness.run()
        let before = try alice.store.clock(of: id)
        let outbox = try alice.store.outboxCount()
        let wait = max(alice.engine.graftDelay, SyncEngine.graftRetry)
        for claimed in UInt64(1)...50 {
            var lie = before
            lie[carol.id] = claimed
            let output = try alice.engine.handle(.clocks([.init(conversation: id, clock: lie)]), from: bob.id)
            #expect(output.replies.isEmpty && output.pushes.isEmpty, "nothing is asked before the delay")
            #expect(output.misbehavior == nil && output.appended.isEmpty)
            alice.clock.advance(by: wait)
            let tick = try alice.engine.tick()
            #expect(requests(tick, to: bob.id) == [.request([.init(conversation: id, clock: before)])])
            #expect((tick.pushes[bob.id] ?? []).count == 1, "a request and nothing else")
        }
        var same = before
        same[carol.id] = 50
        let repeated = try alice.engine.handle(.clocks([.init(conversation: id, clock: same)]), from: bob.id)
        alice.clock.advance(by: wait)
        let quiet = try alice.engine.tick()
        #expect(repeated.replies.isEmpty && quiet.pushes.isEmpty, "the same claim again is no news")
        #expect(try alice.store.clock(of: id) == before && alice.store.outboxCount() == outbox)
    }

    /// Whom a node announces to depends on what each peer said it holds: a peer claiming
    /// to hold everything is skipped — which costs it, and nobody else, the announcement;
    /// its own requests still say what it holds, and are answered.
    @Test func aPeerClaimingToHoldEverythingOnlyMissesItsOwnAnnouncements() throws {
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        harness.add(relay)
        for node in [alice, bob, carol] { harness.connect(node, relay) }
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        try harness.run()
        #expect(try bob.store.texts(id) == ["hi"] && carol.store.texts(id) == ["hi"])
        // Bob tells the relay it already holds a hundred of alice's entries.
        var lie = try bob.store.clock(of: id)
        lie[alice.id] = 100
        _ = try relay.engine.handle(.clocks([.init(conversation: id, clock: lie)]), from: bob.id)
        try harness.wrote([try alice.store.sendMessage("after the lie", to: id)], at: alice)
        try harness.run()
        #expect(try carol.store.texts(id) == ["hi", "after the lie"], "carol is announced to as ever")
        // Bob's claim kept the relay's announcement from him, not the entry: his own request,
        // which says what he holds, is answered from there (Protocol.md §12 step 3).
        #expect(try bob.store.texts(id) == ["hi", "after the lie"])
        // Its next session starts from what it really holds, and it catches up.
        harness.disconnect(bob, relay)
        harness.connect(bob, relay)
        try harness.run()
        #expect(try bob.store.texts(id) == ["hi", "after the lie"])
    }

    /// A lie about the log of an author this node has a session with makes it wait for that
    /// author's push (`authorPushWait`), and then ask once. Only the author's own entries,
    /// stored, move the wait: the liar pushing its own meanwhile does not.
    @Test func aLieAboutAConnectedAuthorsLogCostsOneWaitThenOneRequest() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        try harness.run()
        var lie = try alice.store.clock(of: id)
        lie[carol.id] += 5
        _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: lie)]), from: bob.id)
        var asked = 0
        for second in 1...3 {
            // Bob's own entries, real and stored, every second of the wait.
            let own = try bob.store.sendMessage("bob \(second)", to: id)
            let stored = try alice.engine.handle(.entries([EntryCodec.encode(own)]), from: bob.id)
            #expect(stored.appended.filter { $0.author == bob.id }.map(\.hash) == [own.hash])
            alice.clock.advance(by: .seconds(1))
            asked += requests(try alice.engine.tick(), to: bob.id).count
            #expect(asked == (second < 3 ? 0 : 1), "second \(second)")
        }
        #expect(try alice.store.clock(of: id)[carol.id] < lie[carol.id], "nothing of the lie is held")
    }
}
