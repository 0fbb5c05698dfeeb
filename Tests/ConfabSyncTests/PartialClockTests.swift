import ConfabCrypto
import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// Protocol.md §10.2, partial clocks: after the first clock of a conversation in a session,
/// a peer that reads them is told only the authors that moved, so what an acknowledgement or
/// an announcement costs follows what changed, not how many authors the conversation has.
@Suite struct PartialClockTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
    }

    /// The three in a full mesh, each of whom has written in their group.
    private func groupWhereEveryoneWrote() throws -> ConversationID {
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "alice 1")
        try harness.run()
        for node in [bob, carol] { try harness.wrote([try node.store.sendMessage("\(node.name) 1", to: id)], at: node) }
        try harness.run()
        #expect(try alice.store.clock(of: id).width == 3)
        return id
    }

    /// The clocks `from` sent `to` about `conversation` after the log's `mark`.
    private func clocks(
        from: SyncHarness.Node, to: SyncHarness.Node, about conversation: ConversationID, after mark: Int
    ) -> [SessionMessage.ConversationClock] {
        harness.log.dropFirst(mark).filter { $0.from == from.id && $0.to == to.id }.flatMap { item in
            if case .clocks(let clocks) = item.message { return clocks.filter { $0.conversation == conversation } }
            return []
        }
    }

    @Test func acknowledgementsAndAnnouncementsNameOnlyTheAuthorsThatMoved() throws {
        let id = try groupWhereEveryoneWrote()
        let mark = harness.log.count
        let sent = try alice.store.sendMessage("alice 2", to: id)
        try harness.wrote([sent], at: alice)
        try harness.run()

        let acks = clocks(from: bob, to: alice, about: id, after: mark)
        #expect(!acks.isEmpty)
        // The acknowledgement of her message names her alone; what follows (receipts moving
        // Bob's and Carol's logs) names what moved, never all three.
        #expect(acks.first?.clock == VectorClock([alice.id: sent.seq]))
        #expect(acks.allSatisfy { $0.partial && $0.clock.width < 3 }, "\(acks.map(\.clock.width))")
        // Nothing is lost on the way: what Alice makes of Bob's clocks covers the whole clock
        // Bob last told her, and the log of his partial ones adds up to it.
        let told = try #require(bob.engine.peers[alice.id]?.announced[id])
        #expect(told.width == 3)
        #expect(alice.engine.peers[bob.id]?.theirs[id]?.covers(told) == true)
        #expect(try alice.store.deliveryStatus(id, seq: sent.seq) ?? .sending >= .sent)
        #expect(try carol.store.texts(id) == (try alice.store.texts(id)))
    }

    @Test func aPeerThatDoesNotReadThemIsSentWholeClocks() throws {
        // Bob greets Alice as an earlier implementation would: no "partial-clocks".
        harness.connect(alice, bob, secondFeatures: [SessionCodec.requestsFeature])
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "alice 1")
        try harness.run()
        let mark = harness.log.count
        for node in [bob, carol] { try harness.wrote([try node.store.sendMessage("\(node.name) 1", to: id)], at: node) }
        try harness.run()

        let toBob = clocks(from: alice, to: bob, about: id, after: mark)
        let toCarol = clocks(from: alice, to: carol, about: id, after: mark)
        #expect(!toBob.isEmpty && toBob.allSatisfy { !$0.partial })
        #expect(toCarol.contains { $0.partial })
        #expect(try bob.store.texts(id) == (try carol.store.texts(id)))
    }

    /// A peer's clocks are hints, and a conversation has at most 64 authors: partial clocks
    /// that add up to more end the session, as one whole clock of 65 would.
    @Test func partialClocksThatAddUpToMoreThan64AuthorsEndTheSession() throws {
        let id = try groupWhereEveryoneWrote()
        func strangers(_ count: Int) -> VectorClock {
            VectorClock(
                Dictionary(
                    uniqueKeysWithValues: (0..<count).map { _ in (NodeID(SigningKeyPair.generate().publicKey), 1) }))
        }
        let fine = try alice.engine.handle(
            .clocks([.init(conversation: id, clock: strangers(30), partial: true)]), from: bob.id)
        #expect(fine.misbehavior == nil, "33 authors in all is not yet a lie")
        let lie = try alice.engine.handle(
            .clocks([.init(conversation: id, clock: strangers(35), partial: true)]), from: bob.id)
        #expect(lie.misbehavior?.contains("more than 64 authors") == true)
    }

    /// The lie a partial clock can tell is the one a whole clock can: "I hold more of
    /// Carol's log". Merged, it is a hint like any clock: Alice asks Bob once, with her own
    /// whole clock, and nothing is stored, written or refused.
    @Test func aPartialClaimIsAHintAndGetsOneRequest() throws {
        let id = try groupWhereEveryoneWrote()
        let before = try alice.store.clock(of: id)
        let claim = try alice.engine.handle(
            .clocks([.init(conversation: id, clock: VectorClock([carol.id: 40]), partial: true)]), from: bob.id)
        #expect(claim.misbehavior == nil && claim.appended.isEmpty)
        #expect(alice.engine.peers[bob.id]?.theirs[id]?[carol.id] == 40)
        alice.clock.advance(by: max(alice.engine.graftDelay, SyncEngine.graftRetry) + alice.engine.authorPushWait)
        let tick = try alice.engine.tick()
        let requests = (tick.pushes[bob.id] ?? []).filter { if case .request = $0 { true } else { false } }
        #expect(requests == [.request([.init(conversation: id, clock: before)])])
        #expect(try alice.store.clock(of: id) == before)
    }

    @Test func aPartialClockInARequestIsMalformed() throws {
        let id = ConversationID.random()
        let partial = SessionMessage.ConversationClock(conversation: id, clock: VectorClock(), partial: true)
        #expect(throws: WireError.self) { try SessionCodec.decode(SessionCodec.encode(.request([partial]))) }
        #expect(try SessionCodec.decode(SessionCodec.encode(.clocks([partial]))) == .clocks([partial]))
    }
}
