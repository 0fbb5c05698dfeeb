import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Alice wrote a create and three messages; Bob holds the create and the first message
/// only. Each rejection case offers Bob one bad entry.
struct RejectionScenario {
    let alice: ConfabStore
    let bob: ConfabStore
    let id: ConversationID
    let raw: [[UInt8]]

    init() throws {
        alice = try makeStore(Keys.alice)
        bob = try makeStore(Keys.bob)
        (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "m2", now: at(1))
        _ = try alice.sendMessages(["m3", "m4"], to: id, now: at(2))
        raw = try alice.entries(in: id, author: Keys.alice.id, after: 0)
        for bytes in raw.prefix(2) { try bob.append(bytes) }
    }

    /// Alice's seq 3 as Bob expects it next, with one part replaced, properly signed.
    func aliceSeq3(
        previous: EntryHash?? = nil, clock: VectorClock? = nil, body: EntryBody? = nil,
        by key: SigningKeyPair = Keys.alice
    ) throws -> [UInt8] {
        let m3 = try EntryCodec.decodeUnverified(raw[2])
        let draft = EntryDraft(
            conversationID: id, seq: 3, previous: previous ?? m3.previous, timestamp: m3.timestamp,
            clock: clock ?? m3.clock, body: body ?? m3.body)
        return EntryCodec.encode(EntryCodec.sign(draft, with: key))
    }
}

enum RejectionCase: String, CaseIterable, Sendable {
    case garbage, tooLarge, badSignature, unknownConversation, notParticipant, gap, brokenChain
    case forkAtHeldSeq, secondCreate, ownSeqMissingFromClock, ownSeqTooHighInClock, clockNamesOutsider
    case receiptNamesOutsider, clockSeqBeyondLimit
    /// M3: a later entry whose clock does not cover what its author's previous one had seen.
    case clockGoesBack
    /// M3: an author's first entry whose clock does not even cover the create entry.
    case firstEntryBeforeTheCreate
    /// L3: a receipt whose causal clock names only held entries, but whose `read` claims
    /// far more than that clock covers.
    case receiptBeyondItsOwnClock

    var category: AppendRejection.Category {
        switch self {
        case .garbage, .clockSeqBeyondLimit: return .undecodable
        case .tooLarge: return .tooLarge
        case .badSignature: return .badSignature
        case .unknownConversation: return .unknownConversation
        case .notParticipant: return .notParticipant
        case .gap: return .gap
        case .brokenChain: return .brokenChain
        case .forkAtHeldSeq: return .fork
        // Ids are derived from the creator's key: another key's create for the id does
        // not even decode as a valid entry.
        case .secondCreate: return .undecodable
        // An entry of a key not known as a member here is one not held: the clock waits for
        // it, as the members entry that added the key may not be held yet either.
        case .clockNamesOutsider: return .missingDependency
        case .ownSeqMissingFromClock, .ownSeqTooHighInClock, .receiptNamesOutsider, .clockGoesBack,
            .firstEntryBeforeTheCreate, .receiptBeyondItsOwnClock:
            return .badClock
        }
    }

    /// Whether the sender is shown to be broken or hostile whatever the receiver holds
    /// (Protocol.md §7, "Which rejections end a session"). Who is a participant depends on
    /// the create entry held (its creator may have signed two), and what an author's
    /// earlier entries saw on which of them are held.
    var isSessionError: Bool {
        switch self {
        case .garbage, .tooLarge, .badSignature, .secondCreate, .clockSeqBeyondLimit: return true
        case .ownSeqMissingFromClock, .ownSeqTooHighInClock, .receiptBeyondItsOwnClock: return true
        // Its `read` names someone its own causal clock does not: not covered, whoever holds what.
        case .receiptNamesOutsider: return true
        case .unknownConversation, .notParticipant, .gap, .brokenChain, .forkAtHeldSeq: return false
        case .clockNamesOutsider, .clockGoesBack, .firstEntryBeforeTheCreate: return false
        }
    }

    /// Entries may arrive before what they follow: those rejections are retried, the
    /// others mark the sender as broken or hostile.
    var isRecoverable: Bool { [.gap, .unknownConversation, .clockNamesOutsider].contains(self) }

    /// The bad bytes, and the store they are offered to.
    func offer(_ s: RejectionScenario) throws -> (bytes: [UInt8], to: ConfabStore) {
        switch self {
        case .garbage:
            return ([0x0a, 0xff, 0xff, 0x01, 0x02], s.bob)
        case .tooLarge:
            return ([UInt8](repeating: 0x0a, count: Limits.maxEntryBytes + 1), s.bob)
        case .badSignature:
            var bytes = s.raw[2]
            bytes[bytes.count - 10] ^= 0x20
            return (bytes, s.bob)
        case .unknownConversation:
            // Bob's first entry reaches Carol, who never got the create.
            let bobsFirst = try s.bob.sendMessage("anyone?", to: s.id)
            return (EntryCodec.encode(bobsFirst), try makeStore(Keys.carol))
        case .notParticipant:
            let draft = EntryDraft(
                conversationID: s.id, seq: 1, previous: nil, timestamp: 0, clock: try s.bob.clock(of: s.id),
                body: .message(sealed: [UInt8](repeating: 1, count: 64)))
            return (EntryCodec.encode(EntryCodec.sign(draft, with: Keys.mallory)), s.bob)
        case .gap:
            return (s.raw[3], s.bob)
        case .brokenChain:
            return (try s.aliceSeq3(previous: EntryHash(bytes: [UInt8](repeating: 0x66, count: 32))), s.bob)
        case .forkAtHeldSeq:
            let m2 = try EntryCodec.decodeUnverified(s.raw[1])
            let draft = EntryDraft(
                conversationID: s.id, seq: 2, previous: m2.previous, timestamp: m2.timestamp + 1, clock: m2.clock,
                body: m2.body)
            return (EntryCodec.encode(EntryCodec.sign(draft, with: Keys.alice)), s.bob)
        case .secondCreate:
            // Bob's seq 1 claiming to create the conversation that already exists.
            let body = CreateBody(
                participants: try [Keys.bob.id, Keys.alice.id].map {
                    .init(id: $0, sealedKey: try ConversationCipher.sealKey(ConversationCipher.generateKey(), to: $0))
                }, sealedTitle: [], nonce: [UInt8](repeating: 1, count: 16),
                keyCommitment: [UInt8](repeating: 2, count: 32))
            let draft = EntryDraft(
                conversationID: s.id, seq: 1, previous: nil, timestamp: 0, clock: VectorClock(), body: .create(body))
            return (EntryCodec.encode(EntryCodec.sign(draft, with: Keys.bob)), s.bob)
        case .ownSeqMissingFromClock:
            return (try s.aliceSeq3(clock: VectorClock([Keys.alice.id: 1])), s.bob)
        case .ownSeqTooHighInClock:
            return (try s.aliceSeq3(clock: VectorClock([Keys.alice.id: 3])), s.bob)
        case .clockNamesOutsider:
            return (try s.aliceSeq3(clock: VectorClock([Keys.alice.id: 2, Keys.mallory.id: 1])), s.bob)
        case .receiptNamesOutsider:
            let body = EntryBody.receipt(delivered: VectorClock(), read: VectorClock([Keys.mallory.id: 1]))
            return (try s.aliceSeq3(body: body), s.bob)
        case .clockSeqBeyondLimit:
            // Once trapped inside SQLite argument binding: a remote crash, not a rejection.
            return (try s.aliceSeq3(clock: VectorClock([Keys.alice.id: 2, Keys.bob.id: UInt64(Int64.max) + 1])), s.bob)
        case .clockGoesBack:
            // Bob's first message saw Alice's first two entries; his second claims it saw
            // only the create, to sort above Alice's message.
            let first = try s.bob.sendMessage("seen m2", to: s.id)
            try s.alice.append(EntryCodec.encode(first))
            #expect(first.clock == VectorClock([Keys.alice.id: 2]))
            let draft = EntryDraft(
                conversationID: s.id, seq: 2, previous: first.hash, timestamp: first.timestamp,
                clock: VectorClock([Keys.alice.id: 1, Keys.bob.id: 1]),
                body: try sealedMessage("before m2?", s.bob, in: s.id, author: Keys.bob.id, seq: 2))
            return (EntryCodec.encode(EntryCodec.sign(draft, with: Keys.bob)), s.alice)
        case .firstEntryBeforeTheCreate:
            let draft = EntryDraft(
                conversationID: s.id, seq: 1, previous: nil, timestamp: 0, clock: VectorClock(),
                body: try sealedMessage("first of all", s.bob, in: s.id, author: Keys.bob.id, seq: 1))
            return (EntryCodec.encode(EntryCodec.sign(draft, with: Keys.bob)), s.alice)
        case .receiptBeyondItsOwnClock:
            // Alice holds everything the clock names; "read {alice: 1000}" is more than it.
            let draft = EntryDraft(
                conversationID: s.id, seq: 1, previous: nil, timestamp: 0, clock: VectorClock([Keys.alice.id: 2]),
                body: .receipt(
                    delivered: VectorClock([Keys.alice.id: 2]), read: VectorClock([Keys.alice.id: 1000])))
            return (EntryCodec.encode(EntryCodec.sign(draft, with: Keys.bob)), s.alice)
        }
    }
}

@Suite("Append rejections")
struct AppendRejectionTests {
    @Test(arguments: RejectionCase.allCases)
    func rejectedWithNothingWritten(_ c: RejectionCase) throws {
        let scenario = try RejectionScenario()
        let (bytes, store) = try c.offer(scenario)
        let rejection = try expectAppendRejected(bytes, by: store, c.category)
        #expect(rejection?.isRecoverable == c.isRecoverable)
        #expect(rejection?.isSessionError == c.isSessionError)
        #expect(rejection?.description.isEmpty == false)
        // The batch path refuses it the same way.
        let before = try snapshot(store)
        let batch = try store.append(batch: [bytes])
        guard case .failure(let batchRejection) = batch.first else {
            Issue.record("batch accepted \(c)")
            return
        }
        // A broken chain proves a fork: from then on the author's log is not taken here.
        #expect(batchRejection.category == (c == .brokenChain ? .forkedAuthor : c.category))
        #expect(try snapshot(store) == before)
        let proven = try store.forkedAuthors(in: scenario.id).map(\.author)
        #expect(proven == (c == .brokenChain || c == .forkAtHeldSeq ? [Keys.alice.id] : []))
    }

    @Test func theScenarioAcceptsTheRealEntries() throws {
        // Guards the cases above: without the breakage, the same offers are fine.
        let s = try RejectionScenario()
        #expect(try s.bob.append(try s.aliceSeq3()) != .duplicate)
        #expect(try s.bob.append(s.raw[3]) != .duplicate)
        #expect(try s.bob.history(s.id).map(\.text) == ["m2", "m3", "m4"])
    }

    @Test func clocksAtTheSeqLimitWaitForWhatTheyName() throws {
        let s = try RejectionScenario()
        let carol = try makeStore(Keys.carol)
        let (group, _) = try s.alice.createConversation(
            with: [Keys.bob.id, Keys.carol.id], firstMessage: "hi", now: at(1))
        try sync(group, from: s.alice, to: carol)
        // Carol claims to have seen absurdly much: legal at the limit, so it must not trap,
        // and it names entries nobody holds, so it waits for them (for ever) instead.
        let body = try sealedMessage("far future", carol, in: group, author: Keys.carol.id, seq: 1)
        let draft = EntryDraft(
            conversationID: group, seq: 1, previous: nil, timestamp: 0,
            clock: VectorClock([Keys.alice.id: Limits.maxSeq, Keys.bob.id: Limits.maxSeq]), body: body)
        let rejection = try expectAppendRejected(
            EntryCodec.encode(EntryCodec.sign(draft, with: Keys.carol)), by: s.alice, .missingDependency)
        #expect(rejection?.isRecoverable == true)
        #expect(rejection?.isSessionError == false)
        #expect(try s.alice.history(group).map(\.text) == ["hi"])
    }

    @Test func seqsFromPeersAboveTheLimitDoNotTrap() throws {
        let s = try RejectionScenario()
        #expect(try s.alice.entries(in: s.id, author: Keys.alice.id, after: UInt64.max).isEmpty)
        try s.alice.recordPeerClock(
            VectorClock([Keys.alice.id: UInt64.max]), peer: Keys.bob.id, conversation: s.id, sentUpTo: .max)
        #expect(try s.alice.outbox().isEmpty)
    }

    @Test func gapAndChainMessagesSayWhatWasExpected() throws {
        let s = try RejectionScenario()
        let gap = try expectAppendRejected(s.raw[3], by: s.bob, .gap)
        #expect(gap?.description == "entry seq 4 does not follow the held log (expected 3)")
        let fresh = try makeStore(Keys.bob)
        let early = try expectAppendRejected(s.raw[1], by: fresh, .gap)
        #expect(early?.description.contains("expected 1") == true)
    }

    @Test func aForkIsDetectedAtATombstonedHead() throws {
        // After a delete the entry rows are gone but the head hash remains.
        let s = try RejectionScenario()
        try s.bob.deleteConversation(s.id)
        let m2 = try EntryCodec.decodeUnverified(s.raw[1])
        let forged = EntryCodec.encode(
            EntryCodec.sign(
                EntryDraft(
                    conversationID: s.id, seq: 2, previous: m2.previous, timestamp: 5, clock: m2.clock, body: m2.body),
                with: Keys.alice))
        try expectAppendRejected(forged, by: s.bob, .fork)
        #expect(try s.bob.append(s.raw[1]) == .duplicate)
    }
}
