import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Testing

@testable import ConfabSync

/// What one peer says about others changes only what it may change (Protocol.md §15), at
/// the level of the sync engine: in-memory stores, messages through the real codec.
@Suite struct LyingPeerSyncTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
    }

    /// A message of `author`'s, at `seq`, on whatever branch `previous` says.
    private func message(
        _ text: String, by author: SyncHarness.Node, in id: ConversationID, seq: UInt64, previous: EntryHash?,
        clock: VectorClock
    ) throws -> [UInt8] {
        let key = SecureBytes(try #require(try author.store.conversationKeyForTests(id)))
        let sealed = try ConversationCipher.sealMessage(
            text, key: key, conversationID: id, author: author.id, seq: seq)
        return EntryCodec.encode(
            EntryCodec.sign(
                EntryDraft(
                    conversationID: id, seq: seq, previous: previous, timestamp: 1_800_000_000_000 + Int64(seq),
                    clock: clock, body: .message(sealed: sealed)),
                with: author.keys))
    }

    @Test func aForkProofReachesMembersWhoNeverSawEitherBranch() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        try harness.run()
        harness.disconnect(alice, bob)
        // Carol signs two different seq 1; Alice gets both.
        let clock = VectorClock([alice.id: 2])
        let a = try message("one thing", by: carol, in: id, seq: 1, previous: nil, clock: clock)
        let b = try message("another", by: carol, in: id, seq: 1, previous: nil, clock: clock)
        // Carol's delivered receipt is her seq 1 here already: `a` makes the proof, and `b`,
        // against a log known forked, none again.
        let first = try alice.engine.handle(.entries([a]), from: carol.id)
        let output = try alice.engine.handle(.entries([b]), from: carol.id)
        #expect(first.misbehavior == nil && output.misbehavior == nil)
        #expect((first.forkProofs + output.forkProofs).map(\.author) == [carol.id])
        #expect(try alice.store.forkedAuthors(in: id).map(\.author) == [carol.id])
        // Bob held neither branch: the proof comes with Alice's Hello, and Bob stops taking
        // Carol's log too.
        harness.connect(alice, bob)
        try harness.run()
        #expect(try bob.store.forkedAuthors(in: id).map(\.author) == [carol.id])
        #expect(throws: AppendRejection.self) { try bob.store.append(b) }
        // The proof came before either branch: neither is taken.
        #expect(try bob.store.texts(id) == ["hi"])
        #expect(harness.misbehavior.isEmpty)
    }

    @Test func aProofThatDoesNotCheckIsIgnored() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "hi")
        harness.connect(alice, bob)
        try harness.run()
        let entry = try alice.store.entries(in: id, author: alice.id, after: 0)[1]
        let output = try bob.engine.handle(.forkProof(first: entry, second: entry), from: alice.id)
        #expect(output.misbehavior == nil && output.forkProofs.isEmpty)
        #expect(try bob.store.forkedAuthors(in: id).isEmpty)
    }

    @Test func aLyingClockEmptiesNoOutbox() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "queued")
        harness.connect(alice, bob)
        try harness.run()
        harness.disconnect(alice, bob)
        _ = try alice.store.sendMessage("nobody has this yet", to: id)
        let before = try alice.store.outboxCount()
        // Bob (or anyone claiming to be a relay) says it holds far more of Alice's log.
        harness.connect(alice, bob)
        _ = try alice.engine.handle(.hello(.init(displayName: "bob", role: .person, listenPort: 1)), from: bob.id)
        let output = try alice.engine.handle(
            .clocks([.init(conversation: id, clock: VectorClock([alice.id: 1000, bob.id: 1]))]), from: bob.id)
        // Nothing left the outbox on the claim: what alice has not yet sent bob is sent now.
        #expect(try alice.store.outboxCount() == before)
        let sent = output.replies.flatMap { message -> [[UInt8]] in
            if case .entries(let entries) = message { return entries }
            return []
        }
        #expect(try sent.map { try EntryCodec.decodeUnverified($0).seq }.contains(3))
    }

    @Test func heldButUnsharedAndUnknownConversationsGetTheSameAnswer() throws {
        let (shared, _) = try alice.store.createConversation(with: [carol.id], firstMessage: "not bob's")
        harness.connect(alice, bob)
        try harness.run()
        let unknown = ConversationID.random()
        let claim = VectorClock([bob.id: 1])
        let a = try alice.engine.handle(.clocks([.init(conversation: shared, clock: claim)]), from: bob.id)
        let b = try alice.engine.handle(.clocks([.init(conversation: unknown, clock: claim)]), from: bob.id)
        #expect(a.replies == [.request([.init(conversation: shared, clock: VectorClock())])])
        #expect(b.replies == [.request([.init(conversation: unknown, clock: VectorClock())])])
    }

    /// H5: claims at the seq limit across many shared conversations once overflowed the
    /// count the chat asks for every second, and the node died. Now each author's claim
    /// counts for at most `maxOutstandingPerAuthor` entries beyond what is held, so the
    /// figure a liar can make `confab status` print is bounded too.
    @Test func outstandingCountIsBoundedPerAuthorAndNeverTraps() throws {
        var ids: [ConversationID] = []
        for _ in 0..<1030 { ids.append(try bob.store.createConversation(with: [alice.id]).id) }
        bob.engine.peerConnected(alice.id)
        _ = try bob.engine.handle(.hello(.init(displayName: "alice", role: .person, listenPort: 1)), from: alice.id)
        let authors = (0..<64).map { _ in NodeID(SigningKeyPair.generate().publicKey) }
        let claim = VectorClock(Dictionary(uniqueKeysWithValues: authors.map { ($0, Limits.maxSeq) }))
        for chunk in stride(from: 0, to: ids.count, by: 360) {
            let items = ids[chunk..<min(chunk + 360, ids.count)].map {
                SessionMessage.ConversationClock(conversation: $0, clock: claim)
            }
            _ = try bob.engine.handle(.clocks(items), from: alice.id)
        }
        #expect(try bob.engine.outstandingEntries() == ids.count * 64 * Int(SyncEngine.maxOutstandingPerAuthor))
        // Conversations nobody shares with the peer are not remembered at all.
        let made = (0..<100).map { _ in SessionMessage.ConversationClock(conversation: .random(), clock: claim) }
        carol.engine.peerConnected(alice.id)
        _ = try carol.engine.handle(.hello(.init(displayName: "x", role: .person, listenPort: 1)), from: alice.id)
        _ = try carol.engine.handle(.clocks(made), from: alice.id)
        #expect(try carol.engine.outstandingEntries() == 0)
    }

    /// A Clocks flood of made-up ids: each answered once, at most 4,096 in a session.
    @Test func madeUpConversationsCostABoundedAnswer() throws {
        alice.engine.peerConnected(bob.id)
        _ = try alice.engine.handle(.hello(.init(displayName: "bob", role: .person, listenPort: 1)), from: bob.id)
        let claim = VectorClock([bob.id: 5])
        var answered = 0
        for _ in 0..<2 {
            let items = (0..<3000).map { _ in SessionMessage.ConversationClock(conversation: .random(), clock: claim) }
            for reply in try alice.engine.handle(.clocks(items), from: bob.id).replies {
                if case .request(let clocks) = reply { answered += clocks.count }
            }
        }
        #expect(answered == PeerSyncState.maxAnswered)
        #expect(try alice.engine.outstandingEntries() == 0)
    }

    @Test func untrustedRelayClaimsGetNothing() throws {
        let (_, _) = try alice.store.createConversation(with: [carol.id], firstMessage: "private")
        alice.engine.configuration.trustsRelay = { _ in false }
        alice.engine.peerConnected(bob.id)
        let output = try alice.engine.handle(
            .hello(.init(displayName: "relay", role: .relay, listenPort: 1)), from: bob.id)
        #expect(output.replies == [.request([])])
    }

    /// The draft of `node`'s next entry in `id`, as its own store would fill it in.
    private func next(_ node: SyncHarness.Node, in id: ConversationID) throws -> (seq: UInt64, previous: EntryHash?) {
        let previous = try node.store.entries(in: id, author: node.id, after: 0).last.map {
            try EntryCodec.decodeUnverified($0)
        }
        return ((previous?.seq ?? 0) + 1, previous?.hash)
    }

    /// L2 through `Entries`: a peer that signs an entry of its own for an id gets the same
    /// acknowledgement whether this node holds that conversation (not shared with it) or
    /// not, and the id is not remembered as announced to it.
    @Test func entriesForHeldButUnsharedAndUnknownConversationsGetTheSameAcknowledgement() throws {
        let (unshared, _) = try alice.store.createConversation(with: [carol.id], firstMessage: "not bob's")
        harness.connect(alice, bob)
        try harness.run()
        let unknown = ConversationID.random()
        func probe(_ id: ConversationID) -> [UInt8] {
            EntryCodec.encode(
                EntryCodec.sign(
                    EntryDraft(
                        conversationID: id, seq: 1, previous: nil, timestamp: 1_800_000_000_000, clock: VectorClock(),
                        body: .message(sealed: [UInt8](repeating: 1, count: 64))),
                    with: bob.keys))
        }
        let a = try alice.engine.handle(.entries([probe(unshared)]), from: bob.id)
        let b = try alice.engine.handle(.entries([probe(unknown)]), from: bob.id)
        #expect(a.misbehavior == nil && b.misbehavior == nil)
        #expect(a.replies == [.clocks([.init(conversation: unshared, clock: VectorClock())])])
        #expect(b.replies == [.clocks([.init(conversation: unknown, clock: VectorClock())])])
        // Not recorded as announced: a clock naming it later gets the unknown-id answer too.
        let c = try alice.engine.handle(
            .clocks([.init(conversation: unshared, clock: VectorClock([bob.id: 1]))]), from: bob.id)
        #expect(c.replies == [.request([.init(conversation: unshared, clock: VectorClock())])])
        #expect(try alice.store.texts(unshared) == ["not bob's"])
    }

    /// L3: a receipt whose causal clock is honest (it names only held entries) but whose
    /// `read` claims far more is invalid by itself: the session ends, nothing is stored,
    /// and Alice's next message, which nobody has, stays "sending".
    @Test func aReceiptReadingBeyondItsOwnClockEndsTheSessionAndChangesNoStatus() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "hi")
        harness.connect(alice, bob)
        try harness.run()
        let clock = try bob.store.clock(of: id)
        #expect(clock[alice.id] == 2)
        let (seq, previous) = try next(bob, in: id)
        let receipt = EntryCodec.encode(
            EntryCodec.sign(
                EntryDraft(
                    conversationID: id, seq: seq, previous: previous, timestamp: 1_800_000_000_000, clock: clock,
                    body: .receipt(delivered: VectorClock([alice.id: 2]), read: VectorClock([alice.id: 1000]))),
                with: bob.keys))
        let output = try alice.engine.handle(.entries([receipt]), from: bob.id)
        #expect(output.misbehavior != nil)
        #expect(output.rejectedEntry == "bad_clock")
        let mine = try alice.store.sendMessage("nobody has this", to: id)
        #expect(try alice.store.deliveryStatus(id, seq: mine.seq) == .sending)
    }

    /// A creator may sign two creates with one nonce (one id) and two participant lists.
    /// A relay holding the first gets, from Bob (honest, holding the second), entries whose
    /// clocks name Carol, a participant only there: they are dropped, and the relay keeps
    /// its session with Bob.
    @Test func aClockNamingSomeoneOutsideTheHeldListIsDroppedAndTheSessionStays() throws {
        let mallory = try SyncHarness.Node(name: "mallory", seed: 4)
        let relay = try SyncHarness.Node(name: "relay", seed: 5, role: .relay)
        harness.add(mallory)
        harness.add(relay)
        let nonce = [UInt8](repeating: 9, count: 16)
        let id = ConversationGenesis.conversationID(creator: mallory.id, nonce: nonce)
        let key = ConversationCipher.generateKey()
        func create(_ members: [NodeID]) throws -> [UInt8] {
            EntryCodec.encode(
                EntryCodec.sign(
                    EntryDraft(
                        conversationID: id, seq: 1, previous: nil, timestamp: 1_800_000_000_000, clock: VectorClock(),
                        body: .create(
                            CreateBody(
                                participants: try members.map {
                                    .init(id: $0, sealedKey: try ConversationCipher.sealKey(key, to: $0))
                                },
                                sealedTitle: [], nonce: nonce,
                                keyCommitment: ConversationGenesis.keyCommitment(key, conversationID: id)))),
                    with: mallory.keys))
        }
        try relay.store.append(try create([mallory.id, alice.id, bob.id]), keepsOthers: true)
        let second = try create([mallory.id, bob.id, carol.id])
        try bob.store.append(second)
        try carol.store.append(second)
        _ = try carol.store.sendMessage("carol here", to: id)
        harness.connect(bob, carol)
        try harness.run()
        _ = try bob.store.sendMessage("bob here", to: id)
        #expect(try bob.store.clock(of: id)[carol.id] >= 1)
        harness.disconnect(bob, carol)
        harness.connect(bob, relay)
        try harness.run()
        #expect(harness.misbehavior.isEmpty, "\(harness.misbehavior)")
        #expect(harness.isConnected(bob.id, relay.id))
        // Nothing of Bob's is stored there: each of his entries names Carol.
        #expect(try relay.store.clock(of: id)[bob.id] == 0)
    }

    /// H2 with branches of different lengths: Alice holds Carol's seq 1 of one branch,
    /// Bob seq 1 and 2 of another. Once the fork is proven, Carol's log stops, and what
    /// Bob writes (naming Carol's seq 2, which Alice will never hold) reaches Alice, and
    /// Alice's reaches Bob, receipts included.
    @Test func aForkedAuthorsLongerBranchBlocksNoOneElse() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        try harness.run()
        harness.disconnect(alice, carol)
        let clock = try carol.store.clock(of: id)
        let (seq, previous) = try next(carol, in: id)
        let forAlice = try message("for alice", by: carol, in: id, seq: seq, previous: previous, clock: clock)
        let forBob = try message("for bob", by: carol, in: id, seq: seq, previous: previous, clock: clock)
        var longer = clock
        longer[carol.id] = seq
        let forBobNext = try message(
            "more for bob", by: carol, in: id, seq: seq + 1, previous: try EntryCodec.decodeUnverified(forBob).hash,
            clock: longer)
        try alice.store.append(forAlice)
        try bob.store.append(forBob)
        try bob.store.append(forBobNext)
        harness.disconnect(alice, bob)
        harness.connect(alice, bob)
        try harness.run()
        for node in [alice, bob] { #expect(try node.store.forkedAuthors(in: id).map(\.author) == [carol.id]) }
        // Bob's entries name Carol's seq 2; Alice holds seq 1 of the other branch.
        let bobs = try bob.store.sendMessage("from bob, after the proof", to: id)
        #expect(bobs.clock[carol.id] == seq + 1)
        try harness.wrote([bobs], at: bob)
        let alices = try alice.store.sendMessage("from alice, after the proof", to: id)
        try harness.wrote([alices], at: alice)
        try harness.run()
        #expect(try alice.store.texts(id).contains("from bob, after the proof"))
        #expect(try bob.store.texts(id).contains("from alice, after the proof"))
        // Each one's receipts reached the other: they hold the same logs of each other.
        for node in [alice, bob] {
            #expect(try alice.store.clock(of: id)[node.id] == bob.store.clock(of: id)[node.id])
        }
        #expect(try alice.store.clock(of: id)[bob.id] > bobs.seq)
        #expect(harness.misbehavior.isEmpty, "\(harness.misbehavior)")
    }

    /// An entry kept aside for naming a log beyond what is held is taken once a proof
    /// against that log's author arrives on its own (a `ForkProof` message).
    @Test func aForkProofFreesEntriesThatWaitedForTheForkedLog() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        try harness.run()
        harness.disconnect(alice, bob)
        harness.disconnect(alice, carol)
        let clock = try carol.store.clock(of: id)
        let (seq, previous) = try next(carol, in: id)
        let forAlice = try message("for alice", by: carol, in: id, seq: seq, previous: previous, clock: clock)
        let forBob = try message("for bob", by: carol, in: id, seq: seq, previous: previous, clock: clock)
        var longer = clock
        longer[carol.id] = seq
        let forBobNext = try message(
            "more for bob", by: carol, in: id, seq: seq + 1, previous: try EntryCodec.decodeUnverified(forBob).hash,
            clock: longer)
        try alice.store.append(forAlice)
        try bob.store.append(forBob)
        try bob.store.append(forBobNext)
        let bobs = try bob.store.sendMessage("from bob", to: id)
        alice.engine.peerConnected(bob.id)
        _ = try alice.engine.handle(.hello(.init(displayName: "bob", role: .person, listenPort: 1)), from: bob.id)
        _ = try alice.engine.handle(.entries([EntryCodec.encode(bobs)]), from: bob.id)
        #expect(try !alice.store.texts(id).contains("from bob"))
        let output = try alice.engine.handle(.forkProof(first: forAlice, second: forBob), from: bob.id)
        #expect(output.forkProofs.map(\.author) == [carol.id])
        #expect(output.appended.map(\.hash).contains(bobs.hash))
        #expect(try alice.store.texts(id).contains("from bob"))
    }
}
