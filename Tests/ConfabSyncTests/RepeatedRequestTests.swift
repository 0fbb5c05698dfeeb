import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// Protocol.md §12.5, "asked again": an answer that did not take is asked for again from the
/// peer that holds it, and sent again; what that costs is bounded on both sides, against a
/// peer that claims what it never sends and against one that asks for the same again and
/// again.
@Suite struct RepeatedRequestTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
    }

    private func requests(from: NodeID, to: NodeID) -> Int {
        harness.log.filter { item in
            guard item.from == from, item.to == to, case .request = item.message else { return false }
            return true
        }.count
    }

    private func entries(of author: NodeID, in output: SyncOutput) -> Int {
        output.replies.reduce(0) { count, message in
            guard case .entries(let entries) = message else { return count }
            return count + entries.filter { (try? EntryCodec.decodeUnverified($0))?.author == author }.count
        }
    }

    /// A star: carol reaches bob's entries only through alice, who sends each once. The one
    /// answer is lost here; in a node it is an entry refused, or pushed out of the entries
    /// waiting for what they depend on. Carol asks alice again, and alice sends it again.
    @Test func anAnswerThatDidNotTakeIsAskedForAgainAndSentAgain() throws {
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        try harness.run()
        let message = try bob.store.sendMessage("through alice", to: id)
        var lost = 0
        harness.loses = { [alice, bob, carol] from, to, sent in
            guard lost == 0, from == alice.id, to == carol.id, case .entries(let raw) = sent,
                raw.contains(where: { (try? EntryCodec.decodeUnverified($0))?.author == bob.id })
            else { return false }
            lost += 1
            return true
        }
        let before = requests(from: carol.id, to: alice.id)
        try harness.wrote([message], at: bob)
        try harness.run()
        #expect(lost == 1)
        // Alice sends it again once it has been on its way for `resendInterval`; carol's
        // requests come 2 s and then 4 s apart.
        var waited = 0
        while try carol.store.texts(id).count < 2, waited < 30 {
            alice.clock.advance(by: .seconds(1))
            try harness.tick(carol, by: .seconds(1))
            waited += 1
        }
        #expect(try carol.store.texts(id) == ["hi", "through alice"])
        #expect(requests(from: carol.id, to: alice.id) - before == 3, "asked, then 2 s and 4 s later")
    }

    /// A peer that claims entries it never sends is asked once, then again after 2, 4, 8 and
    /// 16 s, and from then on every 30 s while the claim stands: a small request each time.
    @Test func aClaimNeverAnsweredIsAskedForAgainAtAWaitThatDoublesUpTo30Seconds() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        harness.connect(alice, bob)
        try harness.run()
        var lie = try alice.store.clock(of: id)
        lie[carol.id] = 5
        _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: lie)]), from: bob.id)
        var asked: [Int] = []
        for second in 1...130 {
            alice.clock.advance(by: .seconds(1))
            let output = try alice.engine.tick()
            let sent = (output.pushes[bob.id] ?? []).filter { if case .request = $0 { true } else { false } }
            if !sent.isEmpty { asked.append(second) }
        }
        let waits = zip(asked.dropFirst(), asked).map { $0 - $1 }
        #expect(asked.first == 1)
        #expect(waits == [2, 4, 8, 16, 30, 30, 30], "asked at \(asked)")
        // News starts over: the next request follows its own delay.
        lie[carol.id] = 6
        _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: lie)]), from: bob.id)
        alice.clock.advance(by: .seconds(1))
        #expect((try alice.engine.tick().pushes[bob.id] ?? []).count == 1)
    }

    /// A peer that asks, with a clock lacking what it was sent, over and over is sent the
    /// same entries again only once they were sent `SyncEngine.resendInterval` (5 s) ago,
    /// even what it said before that it held.
    @Test func askingForTheSameAgainAndAgainGetsItAgainOnlyEveryFiveSeconds() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        _ = try alice.store.sendMessages(["one", "two"], to: id)
        alice.engine.peerConnected(bob.id)
        _ = try alice.engine.handle(.hello(.init(displayName: "bob", role: .person, listenPort: 1)), from: bob.id)
        let nothing = [SessionMessage.ConversationClock(conversation: id, clock: VectorClock())]
        var sent: [Int] = []
        // Twenty seconds of a request every 100 ms.
        for _ in 0..<200 {
            sent.append(entries(of: alice.id, in: try alice.engine.handle(.request(nothing), from: bob.id)))
            alice.clock.advance(by: .milliseconds(100))
        }
        #expect(sent.filter { $0 > 0 } == [4, 4, 4, 4], "sent at requests \(sent.indices.filter { sent[$0] > 0 })")
        // Once it says it holds them, asking with an older clock gets them again no sooner:
        // its request is its word about what it holds (it may have lost them), and costs
        // this node no more than asking with nothing all along.
        let held = try alice.store.clock(of: id)
        _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: held)]), from: bob.id)
        alice.clock.advance(by: SyncEngine.resendInterval)
        #expect(entries(of: alice.id, in: try alice.engine.handle(.request(nothing), from: bob.id)) == 4)
    }
}
