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
        _ = try alice.engine.handle(.entries([a]), from: carol.id)
        let output = try alice.engine.handle(.entries([b]), from: carol.id)
        #expect(output.misbehavior == nil)
        #expect(output.forkProofs.map(\.author) == [carol.id])
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
        #expect(try sent.map { try EntryCodec.decode($0).seq }.contains(3))
    }

    @Test func heldButUnsharedAndUnknownConversationsGetTheSameAnswer() throws {
        let (shared, _) = try alice.store.createConversation(with: [carol.id], firstMessage: "not bob's")
        harness.connect(alice, bob)
        try harness.run()
        let unknown = ConversationID.random()
        let claim = VectorClock([bob.id: 1])
        let a = try alice.engine.handle(.clocks([.init(conversation: shared, clock: claim)]), from: bob.id)
        let b = try alice.engine.handle(.clocks([.init(conversation: unknown, clock: claim)]), from: bob.id)
        #expect(a.replies == [.clocks([.init(conversation: shared, clock: VectorClock())])])
        #expect(b.replies == [.clocks([.init(conversation: unknown, clock: VectorClock())])])
    }

    /// H5: claims at the seq limit across many shared conversations once overflowed the
    /// count the chat asks for every second, and the node died.
    @Test func outstandingCountSaturatesInsteadOfTrapping() throws {
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
        #expect(try bob.engine.outstandingEntries() == Int.max)
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
                if case .clocks(let clocks) = reply { answered += clocks.count }
            }
        }
        #expect(answered == PeerSyncState.maxAnswered)
        #expect(try alice.engine.outstandingEntries() == 0)
    }

    @Test func untrustedRelayClaimsGetNothing() throws {
        let (_, _) = try alice.store.createConversation(with: [carol.id], firstMessage: "private")
        alice.engine.trustsRelay = { _ in false }
        alice.engine.peerConnected(bob.id)
        let output = try alice.engine.handle(
            .hello(.init(displayName: "relay", role: .relay, listenPort: 1)), from: bob.id)
        #expect(output.replies == [.clocks([])])
    }
}
