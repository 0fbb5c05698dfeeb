import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

/// What one peer can make the engine send it: a Want is answered once per range, and what
/// is in flight to a peer, pushed or asked for, stays within the byte window until the
/// peer acknowledges it (Protocol.md §12 step 3, §12.2).
@Suite struct FlowControlTests {
    let harness = SyncHarness()
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node

    init() throws {
        alice = try .init(name: "alice", seed: 1)
        bob = try .init(name: "bob", seed: 2)
        for node in [alice, bob] { harness.add(node) }
    }

    func entryCount(_ messages: [SessionMessage]) -> Int {
        messages.reduce(0) { count, message in
            if case .entries(let entries) = message { return count + entries.count }
            return count
        }
    }

    func entryBytes(_ messages: [SessionMessage]) -> Int {
        messages.reduce(0) { bytes, message in
            if case .entries(let entries) = message { return bytes + entries.reduce(0) { $0 + $1.count } }
            return bytes
        }
    }

    /// Alice's engine with Bob connected and past Hello, driven by hand: Bob says nothing
    /// unless the test makes him.
    func bobConnectedByHand() throws {
        alice.engine.peerConnected(bob.id)
        _ = try alice.engine.handle(.hello(.init(displayName: "bob", role: .person, listenPort: 1)), from: bob.id)
    }

    func want(_ conversation: ConversationID, after: UInt64) -> SessionMessage {
        .want(.init(conversation: conversation, author: alice.id, after: after))
    }

    @Test func aThousandIdenticalWantsAreAnsweredOnce() throws {
        // Seqs 1 (the create) to 200: within one answer of 256 entries.
        let (id, _) = try alice.store.createConversation(with: [bob.id])
        _ = try alice.store.sendMessages((0..<199).map { "message \($0)" }, to: id)
        try bobConnectedByHand()
        var answers = 0
        var entries = 0
        for _ in 0..<1000 {
            let replies = try alice.engine.handle(want(id, after: 0), from: bob.id).replies
            if !replies.isEmpty { answers += 1 }
            entries += entryCount(replies)
        }
        #expect(answers == 1)
        #expect(entries == 200)
    }

    @Test func overlappingWantsGetOnlyWhatWasNotAnsweredYet() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "first")
        _ = try alice.store.sendMessages((0..<300).map { "message \($0)" }, to: id)
        // Written together, seqs 3…302 are signed every 64th from the run's start (66, 130,
        // 194, 258) and at its end: an answer of up to 256 entries ends at 194 (§12 step 3).
        #expect(try signedSeqs(id).filter { $0 > 2 } == [66, 130, 194, 258, 302])
        try bobConnectedByHand()
        #expect(entryCount(try alice.engine.handle(want(id, after: 0), from: bob.id).replies) == 194)
        // Seqs 101…302 asked for; 101…194 were answered already, and 195…302 end signed.
        #expect(entryCount(try alice.engine.handle(want(id, after: 100), from: bob.id).replies) == 108)
        #expect(try alice.engine.handle(want(id, after: 0), from: bob.id).replies.isEmpty)
        #expect(try alice.engine.handle(want(id, after: 290), from: bob.id).replies.isEmpty)
        // A new session starts afresh: its peer may have lost what the last one carried.
        alice.engine.peerDisconnected(bob.id)
        try bobConnectedByHand()
        #expect(entryCount(try alice.engine.handle(want(id, after: 290), from: bob.id).replies) == 12)
    }

    /// The seqs of Alice's entries in `id` that carry a signature of their own.
    func signedSeqs(_ id: ConversationID) throws -> [UInt64] {
        try alice.store.entries(in: id, author: alice.id, after: 0).map { try EntryCodec.decodeUnverified($0) }
            .filter { !EntryCodec.isUnsigned($0) }.map(\.seq)
    }

    @Test func wantAnswersWaitForAcknowledgementsBeyondTheByteWindow() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "first")
        _ = try alice.store.sendMessages((0..<100).map { String(repeating: "\($0 % 10)", count: 30_000) }, to: id)
        try bobConnectedByHand()
        let first = try alice.engine.handle(want(id, after: 0), from: bob.id).replies
        let window = alice.engine.configuration.byteWindow
        // Up to the last signed entry within the window: a run left unsigned is under
        // 192 KiB (§4.3), and its signed entry one more of these.
        #expect(entryBytes(first) <= window && entryBytes(first) > window - 192 * 1024 - 40_000)
        // Nothing the engine sends is over the message limit a receiver accepts.
        #expect(first.allSatisfy { SessionCodec.encode($0).count <= SessionCodec.maxMessageBytes })
        let answered = UInt64(entryCount(first))
        #expect(try alice.engine.handle(want(id, after: answered), from: bob.id).replies.isEmpty)
        // Bob acknowledges the conversation: the window is free again, for what Alice
        // pushes (her own entries not yet sent in this session) and the answer together.
        let acknowledgement = SessionMessage.clocks([.init(conversation: id, clock: try alice.store.clock(of: id))])
        let pushed = try alice.engine.handle(acknowledgement, from: bob.id).replies
        let next = try alice.engine.handle(want(id, after: answered), from: bob.id).replies
        #expect(entryCount(pushed + next) > 0)
        #expect(entryBytes(pushed + next) <= window)
    }

    @Test func aPeerThatDoesNotAcknowledgeIsSentNoMoreThanTheByteWindow() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "first")
        _ = try alice.store.sendMessages((0..<100).map { String(repeating: "\($0 % 10)", count: 30_000) }, to: id)
        try bobConnectedByHand()
        // "Send me all of it", and nothing more from Bob.
        let replies = try alice.engine.handle(.clocks([.init(conversation: id, clock: VectorClock())]), from: bob.id)
            .replies
        #expect(entryBytes(replies) <= alice.engine.configuration.byteWindow)
        #expect(entryCount(replies) < 101)
        // A local write offers nothing more either, until Bob acknowledges.
        let entry = try alice.store.sendMessage("one more", to: id)
        #expect(entryCount(try alice.engine.didWrite([entry]).pushes[bob.id] ?? []) == 0)
        let sent = UInt64(entryCount(replies))
        let acknowledgement = SessionMessage.clocks([.init(conversation: id, clock: VectorClock([alice.id: sent]))])
        #expect(entryCount(try alice.engine.handle(acknowledgement, from: bob.id).replies) > 0)
    }

    @Test func largeSyncsOfSeveralConversationsCompleteThroughTheWindow() throws {
        var expected: [ConversationID: [String]] = [:]
        for n in 0..<3 {
            let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "start \(n)")
            let texts = (0..<60).map { String(repeating: "\(($0 + n) % 10)", count: 30_000) }
            _ = try alice.store.sendMessages(texts, to: id)
            expected[id] = ["start \(n)"] + texts
        }
        harness.connect(alice, bob)
        try harness.run()
        for (id, texts) in expected { #expect(try bob.store.texts(id) == texts) }
        #expect(harness.misbehavior.isEmpty)
    }
}
