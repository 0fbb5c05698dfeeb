import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import Foundation
import Testing

@testable import ConfabWire

enum SampleKind: String, CaseIterable, Sendable {
    case createWithTitle, createUntitled, message, receipt
}

/// A signed entry of each kind, with the conversation key so tests can look inside.
func sample(_ kind: SampleKind) throws -> (key: SecureBytes, entry: Entry) {
    let (key, create) = try makeCreate(title: kind == .createUntitled ? "" : "Weekend plans ☀️")
    switch kind {
    case .createWithTitle, .createUntitled:
        return (key, create)
    case .message:
        let sealed = try ConversationCipher.sealMessage(
            "see you at 8 🍕", key: key, conversationID: conversation, author: Keys.alice.id, seq: 2)
        let draft = makeDraft(
            seq: 2, previous: create.hash, clock: VectorClock([Keys.alice.id: 1]), body: .message(sealed: sealed))
        return (key, EntryCodec.sign(draft, with: Keys.alice))
    case .receipt:
        let draft = makeDraft(
            seq: 1, previous: nil, clock: VectorClock([Keys.alice.id: 2]),
            body: .receipt(delivered: VectorClock([Keys.alice.id: 2]), read: VectorClock([Keys.alice.id: 1])))
        return (key, EntryCodec.sign(draft, with: Keys.bob))
    }
}

@Suite("EntryCodec")
struct EntryCodecTests {
    @Test(arguments: SampleKind.allCases)
    func roundTrip(_ kind: SampleKind) throws {
        let (key, entry) = try sample(kind)
        let bytes = EntryCodec.encode(entry)
        let decoded = try EntryCodec.decode(bytes)
        #expect(decoded == entry)
        #expect(decoded.hash == EntryHash.of(content: decoded.content))
        #expect(EntryCodec.encode(decoded) == bytes)

        switch (kind, decoded.body) {
        case (.createWithTitle, .create(let create)), (.createUntitled, .create(let create)):
            #expect(decoded.kind == .create)
            #expect(decoded.previous == nil)
            #expect(create.participantIDs == [Keys.alice.id, Keys.bob.id, Keys.carol.id])
            let opened = try ConversationCipher.openKey(create.participants[1].sealedKey, with: Keys.bob)
            #expect(opened.isEqual(to: key))
            let title = try ConversationCipher.openTitle(create.sealedTitle, key: opened, conversationID: conversation)
            #expect(title == (kind == .createWithTitle ? "Weekend plans ☀️" : nil))
        case (.message, .message(let sealed)):
            #expect(decoded.seq == 2)
            #expect(decoded.clock == VectorClock([Keys.alice.id: 1]))
            let text = try ConversationCipher.openMessage(
                sealed, key: key, conversationID: conversation, author: decoded.author, seq: decoded.seq)
            #expect(text == "see you at 8 🍕")
        case (.receipt, .receipt(let delivered, let read)):
            #expect(decoded.author == Keys.bob.id)
            #expect(delivered == VectorClock([Keys.alice.id: 2]))
            #expect(read == VectorClock([Keys.alice.id: 1]))
        default:
            Issue.record("decoded body \(decoded.body.kind) for \(kind)")
        }
    }

    // MARK: Sizes and garbage

    @Test func rejectsOversizedInputBeforeParsing() {
        expectRejected([UInt8](repeating: 0, count: Limits.maxEntryBytes + 1), .tooLarge, mentioning: "entry is")
        // At the limit the size check passes and the bytes are judged on their content.
        #expect(decodeError([UInt8](repeating: 0, count: Limits.maxEntryBytes))?.category == .malformed)
    }

    @Test func rejectsAnOversizedSignedEntry() throws {
        let draft = makeDraft(
            seq: 1, previous: nil, clock: VectorClock(), body: .message(sealed: [UInt8](repeating: 9, count: 70_000)))
        let bytes = EntryCodec.encode(EntryCodec.sign(draft, with: Keys.alice))
        #expect(bytes.count > Limits.maxEntryBytes)
        expectRejected(bytes, .tooLarge, mentioning: "entry is")
    }

    @Test func rejectsAnOversizedMessageBody() {
        let limit = Limits.maxMessageTextBytes + 64 + ConversationCipher.overhead
        let draft = makeDraft(
            seq: 1, previous: nil, clock: VectorClock(), body: .message(sealed: [UInt8](repeating: 9, count: limit + 1))
        )
        expectRejected(
            EntryCodec.encode(EntryCodec.sign(draft, with: Keys.alice)), .tooLarge, mentioning: "sealed message")
        let fits = makeDraft(
            seq: 1, previous: nil, clock: VectorClock(), body: .message(sealed: [UInt8](repeating: 9, count: limit)))
        #expect(decodeError(EntryCodec.encode(EntryCodec.sign(fits, with: Keys.alice))) == nil)
    }

    @Test func rejectsAMessageBodyShorterThanItsOverhead() {
        let draft = makeDraft(
            seq: 1, previous: nil, clock: VectorClock(),
            body: .message(sealed: [UInt8](repeating: 9, count: ConversationCipher.overhead - 1)))
        expectRejected(
            EntryCodec.encode(EntryCodec.sign(draft, with: Keys.alice)), .malformed, mentioning: "sealed message")
    }

    @Test(arguments: 0..<16)
    func rejectsRandomGarbage(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        for _ in 0..<25 {
            let bytes = rng.bytes(Int.random(in: 0..<600, using: &rng))
            #expect(decodeError(bytes) != nil)
        }
    }

    @Test(arguments: SampleKind.allCases)
    func rejectsEveryTruncation(_ kind: SampleKind) throws {
        let bytes = EntryCodec.encode(try sample(kind).entry)
        for length in 0..<bytes.count {
            #expect(decodeError(Array(bytes.prefix(length))) != nil, "prefix of \(length) bytes was accepted")
        }
    }

    // MARK: Signatures

    @Test func everyFlippedContentBitIsRejected() throws {
        let entry = try sample(.message).entry
        var categories = Set<WireError.Category>()
        for bit in 0..<(entry.content.count * 8) {
            var content = entry.content
            content[bit / 8] ^= 1 << (bit % 8)
            guard let error = decodeError(envelope(content: content, signature: entry.signature)) else {
                Issue.record("flipping bit \(bit) of the content went unnoticed")
                continue
            }
            categories.insert(error.category)
        }
        #expect(categories.contains(.badSignature))
    }

    @Test func aFlippedBitInTheCiphertextIsABadSignature() throws {
        // The sealed body is the last field of the content, so its last byte is opaque data
        // that still parses: only the signature can catch the change.
        let entry = try sample(.message).entry
        var content = entry.content
        content[content.count - 1] ^= 0x01
        expectRejected(envelope(content: content, signature: entry.signature), .badSignature, mentioning: "signature")
    }

    @Test func everyFlippedSignatureBitIsRejected() throws {
        let entry = try sample(.receipt).entry
        for bit in 0..<(entry.signature.count * 8) {
            var signature = entry.signature
            signature[bit / 8] ^= 1 << (bit % 8)
            #expect(decodeError(envelope(content: entry.content, signature: signature))?.category == .badSignature)
        }
    }

    @Test func aSignatureOverOtherContentIsRejected() throws {
        let a = try sample(.createWithTitle).entry
        let b = try sample(.message).entry
        #expect(a.author == b.author)
        expectRejected(envelope(content: b.content, signature: a.signature), .badSignature, mentioning: "signature")
    }

    @Test func aSignatureByAnotherKeyIsRejected() throws {
        let entry = try sample(.message).entry
        let forged = Keys.mallory.sign(EntryDomain.signature + entry.content)
        expectRejected(envelope(content: entry.content, signature: forged), .badSignature, mentioning: "signature")
    }

    @Test func aSignatureWithoutTheDomainPrefixIsRejected() throws {
        let entry = try sample(.message).entry
        let undomained = Keys.alice.sign(entry.content)
        expectRejected(envelope(content: entry.content, signature: undomained), .badSignature, mentioning: "signature")
    }

    @Test(arguments: [0, 63, 65])
    func rejectsABadSignatureLength(_ length: Int) throws {
        let entry = try sample(.message).entry
        let signature = Array((entry.signature + [0]).prefix(length))
        expectRejected(
            envelope(content: entry.content, signature: signature), .malformed, mentioning: "signature length")
    }

    // MARK: Log position

    @Test func rejectsSeqZero() {
        let draft = makeDraft(
            seq: 0, previous: nil, clock: VectorClock(), body: .receipt(delivered: .init(), read: .init()))
        expectRejected(EntryCodec.encode(EntryCodec.sign(draft, with: Keys.alice)), .malformed, mentioning: "seq 0")
    }

    /// Seqs beyond the limit would overflow clock sums in the store's 64-bit integers.
    @Test func rejectsASeqBeyondTheLimit() {
        var content = rawMessageContent()
        content.seq = Limits.maxSeq + 1
        content.clock = [clockEntry(Keys.alice.id.bytes, Limits.maxSeq)]
        expectRejected(signRaw(content, by: Keys.alice), .malformed, mentioning: "seq \(Limits.maxSeq + 1) (limit")
        content.seq = Limits.maxSeq
        content.clock = [clockEntry(Keys.alice.id.bytes, Limits.maxSeq - 1)]
        #expect(decodeError(signRaw(content, by: Keys.alice)) == nil)
    }

    @Test(arguments: [Limits.maxSeq + 1, UInt64(Int64.max) + 1, UInt64.max])
    func rejectsClockSeqsBeyondTheLimit(_ seq: UInt64) {
        var content = rawMessageContent()
        content.clock = [clockEntry(Keys.alice.id.bytes, 1), clockEntry(Keys.bob.id.bytes, seq)]
        expectRejected(signRaw(content, by: Keys.alice), .malformed, mentioning: "causal clock seq \(seq)")
        let receipt = makeDraft(
            seq: 1, previous: nil, clock: VectorClock(),
            body: .receipt(delivered: VectorClock([Keys.bob.id: seq]), read: VectorClock()))
        expectRejected(
            EntryCodec.encode(EntryCodec.sign(receipt, with: Keys.alice)), .malformed, mentioning: "delivered clock seq"
        )
    }

    @Test func acceptsClockSeqsAtTheLimit() {
        var content = rawMessageContent()
        content.clock = [clockEntry(Keys.alice.id.bytes, 1), clockEntry(Keys.bob.id.bytes, Limits.maxSeq)]
        #expect(decodeError(signRaw(content, by: Keys.alice)) == nil)
    }

    @Test func rejectsAPreviousHashOnSeqOne() {
        let draft = makeDraft(
            seq: 1, previous: EntryHash(bytes: [UInt8](repeating: 1, count: 32)), clock: VectorClock(),
            body: .receipt(delivered: .init(), read: .init()))
        expectRejected(
            EntryCodec.encode(EntryCodec.sign(draft, with: Keys.alice)), .malformed,
            mentioning: "previous hash on seq 1")
    }

    @Test func rejectsAMissingPreviousHashOnSeqTwo() {
        let draft = makeDraft(
            seq: 2, previous: nil, clock: VectorClock([Keys.alice.id: 1]),
            body: .receipt(delivered: .init(), read: .init()))
        expectRejected(
            EntryCodec.encode(EntryCodec.sign(draft, with: Keys.alice)), .malformed, mentioning: "previous hash")
    }

    @Test func rejectsAShortPreviousHash() {
        var content = rawMessageContent()
        content.previous = Data(repeating: 7, count: 31)
        expectRejected(signRaw(content, by: Keys.alice), .malformed, mentioning: "previous hash (31 bytes")
    }

    @Test(arguments: [0, 15, 17])
    func rejectsABadConversationIDLength(_ length: Int) {
        var content = rawMessageContent()
        content.conversationID = Data(repeating: 1, count: length)
        expectRejected(signRaw(content, by: Keys.alice), .malformed, mentioning: "conversation id")
    }

    @Test func rejectsABadAuthorLength() {
        var content = rawMessageContent()
        content.author = Data(Keys.alice.id.bytes.dropLast())
        expectRejected(signRaw(content, by: Keys.alice), .malformed, mentioning: "author key")
    }

    /// Protocol.md §4.2 (issue 34, point 11): a body member this node does not know is no
    /// body for it, and of several known ones the last on the wire counts, as protobuf
    /// reads a oneof; the signature covers the bytes, so every node reads them alike.
    @Test func theLastKnownBodyMemberCountsAndAnUnknownOneIsNone() throws {
        let message: [UInt8] = try rawMessageContent().serializedBytes()
        // Field 30, length-delimited, 3 bytes: a body of a kind from a newer version.
        let unknown: [UInt8] = [0xF2, 0x01, 0x03, 1, 2, 3]
        let messageAndUnknown = try EntryCodec.decode(signRaw(message + unknown, by: Keys.alice))
        guard case .message = messageAndUnknown.body else {
            Issue.record("a known body beside an unknown one: \(messageAndUnknown.body)")
            return
        }
        var receipt = Confab_V1_EntryContent()
        receipt.receipt = Confab_V1_ReceiptBody()
        let receiptField: [UInt8] = try receipt.serializedBytes()
        #expect(receiptField == [0x92, 0x01, 0x00])
        let messageThenReceipt = try EntryCodec.decode(signRaw(message + receiptField, by: Keys.alice))
        guard case .receipt = messageThenReceipt.body else {
            Issue.record("the last known body should count: \(messageThenReceipt.body)")
            return
        }
        var bare = rawMessageContent()
        bare.body = nil
        let onlyUnknown = try EntryCodec.decode(signRaw(try bare.serializedBytes() + unknown, by: Keys.alice))
        guard case .unknown = onlyUnknown.body else {
            Issue.record("an entry with only an unknown body is unknown: \(onlyUnknown.body)")
            return
        }
    }

    @Test func theRawFixtureItselfIsValid() {
        // The tests above break one field of this content; it must be accepted unbroken.
        #expect(decodeError(signRaw(rawMessageContent(), by: Keys.alice)) == nil)
    }

    // MARK: Create bodies

    @Test func rejectsTooManyParticipants() throws {
        var rng = SplitMix64(seed: 65)
        let others = (0..<Limits.maxParticipants).map { _ in NodeID(bytes: rng.bytes(32))! }
        var content = rawMessageContent()
        content.seq = 1
        content.previous = Data()
        content.clock = []
        var create = Confab_V1_CreateBody()
        create.participants = ([Keys.alice.id] + others).map { id in
            var participant = Confab_V1_Participant()
            participant.key = Data(id.bytes)
            participant.sealedKey = Data(repeating: 5, count: ConversationCipher.sealedKeyLength)
            return participant
        }
        content.create = create
        let bytes = signRaw(content, by: Keys.alice)
        #expect(bytes.count < Limits.maxEntryBytes)
        expectRejected(bytes, .tooLarge, mentioning: "participant list is \(Limits.maxParticipants + 1)")
    }

    @Test func acceptsExactlyTheParticipantLimit() throws {
        var rng = SplitMix64(seed: 64)
        let others = (0..<(Limits.maxParticipants - 1)).map { _ in try! SigningKeyPair(seed: rng.bytes(32)).id }
        let create = try makeCreate(participants: [Keys.alice.id] + others).entry
        #expect(decodeError(EntryCodec.encode(create)) == nil)
    }

    @Test func rejectsDuplicateParticipants() throws {
        let create = try makeCreate(participants: [Keys.alice.id, Keys.bob.id, Keys.bob.id]).entry
        expectRejected(EntryCodec.encode(create), .malformed, mentioning: "duplicate participant")
    }

    /// A device creates in its person's name and is no participant (Protocol.md §20.11):
    /// whose device it is only the lists a store holds can say, so the entry alone decodes,
    /// and the store judges it (DeviceCreateTests).
    @Test func decodesACreatorWhoIsNotAParticipant() throws {
        let create = try makeCreate(participants: [Keys.bob.id, Keys.carol.id]).entry
        #expect(decodeError(EntryCodec.encode(create)) == nil)
    }

    @Test func rejectsAConversationOfOne() throws {
        let create = try makeCreate(participants: [Keys.alice.id]).entry
        expectRejected(EntryCodec.encode(create), .malformed, mentioning: "fewer than 2")
    }

    @Test(arguments: [2, 7])
    func rejectsACreateWithSeqOtherThanOne(_ seq: UInt64) throws {
        let create = try makeCreate(seq: seq, clock: VectorClock([Keys.alice.id: seq - 1])).entry
        expectRejected(EntryCodec.encode(create), .malformed, mentioning: "create entry with seq \(seq)")
    }

    @Test func rejectsABadSealedKeyLength() {
        let body = CreateBody(
            participants: [
                .init(id: Keys.alice.id, sealedKey: [UInt8](repeating: 1, count: ConversationCipher.sealedKeyLength)),
                .init(id: Keys.bob.id, sealedKey: [UInt8](repeating: 1, count: ConversationCipher.sealedKeyLength - 1)),
            ], sealedTitle: [], nonce: conversationNonce, keyCommitment: [UInt8](repeating: 0, count: 32))
        let entry = EntryCodec.sign(
            makeDraft(seq: 1, previous: nil, clock: VectorClock(), body: .create(body)), with: Keys.alice)
        expectRejected(EntryCodec.encode(entry), .malformed, mentioning: "sealed conversation key length")
    }

    @Test func rejectsAnOversizedOrTruncatedTitle() {
        func create(title: [UInt8]) -> [UInt8] {
            let participants = [Keys.alice.id, Keys.bob.id].map {
                CreateBody.Participant(
                    id: $0, sealedKey: [UInt8](repeating: 1, count: ConversationCipher.sealedKeyLength))
            }
            let body = CreateBody(
                participants: participants, sealedTitle: title, nonce: conversationNonce,
                keyCommitment: [UInt8](repeating: 0, count: 32))
            return EntryCodec.encode(
                EntryCodec.sign(
                    makeDraft(seq: 1, previous: nil, clock: VectorClock(), body: .create(body)), with: Keys.alice))
        }
        let limit = Limits.maxTitleBytes + ConversationCipher.overhead + 8
        expectRejected(create(title: [UInt8](repeating: 2, count: limit + 1)), .tooLarge, mentioning: "sealed title")
        #expect(decodeError(create(title: [UInt8](repeating: 2, count: limit))) == nil)
        expectRejected(
            create(title: [UInt8](repeating: 2, count: ConversationCipher.overhead - 1)), .malformed,
            mentioning: "sealed title")
    }

    /// Protocol 1's create (Protocol.md §4.9): nonce, commitment and names all absent is
    /// one, with whatever id; any one of them alone absent is malformed.
    @Test func takesAProtocolOneCreateOnlyWhole() throws {
        func create(nonce: [UInt8], commitment: [UInt8], id: ConversationID = conversation) -> [UInt8] {
            let participants = [Keys.alice.id, Keys.bob.id].map {
                CreateBody.Participant(
                    id: $0, sealedKey: [UInt8](repeating: 1, count: ConversationCipher.sealedKeyLength))
            }
            let body = CreateBody(participants: participants, sealedTitle: [], nonce: nonce, keyCommitment: commitment)
            return EntryCodec.encode(
                EntryCodec.sign(
                    EntryDraft(
                        conversationID: id, seq: 1, previous: nil, timestamp: 1_700_000_000_000, clock: VectorClock(),
                        body: .create(body)), with: Keys.alice))
        }
        let random = ConversationID(bytes: [UInt8](repeating: 9, count: 16))!
        let legacy = try EntryCodec.decode(create(nonce: [], commitment: [], id: random))
        guard case .create(let body) = legacy.body else {
            Issue.record("not a create")
            return
        }
        #expect(body.isLegacy)
        expectRejected(
            create(nonce: [], commitment: [UInt8](repeating: 0, count: 32)), .malformed, mentioning: "nonce length 0")
        expectRejected(
            create(nonce: conversationNonce, commitment: []), .malformed, mentioning: "key commitment length")
    }

    // MARK: Clocks

    @Test func rejectsAClockNamingAnAuthorTwice() {
        var content = rawMessageContent()
        content.clock = [
            clockEntry(Keys.alice.id.bytes, 1), clockEntry(Keys.bob.id.bytes, 3), clockEntry(Keys.alice.id.bytes, 1),
        ]
        expectRejected(signRaw(content, by: Keys.alice), .malformed, mentioning: "names an author twice")
    }

    @Test func rejectsAClockEntryAtSeqZero() {
        var content = rawMessageContent()
        content.clock = [clockEntry(Keys.alice.id.bytes, 1), clockEntry(Keys.bob.id.bytes, 0)]
        expectRejected(signRaw(content, by: Keys.alice), .malformed, mentioning: "causal clock seq 0")
    }

    @Test func rejectsAClockWithAShortAuthorKey() {
        var content = rawMessageContent()
        content.clock = [clockEntry(Array(Keys.bob.id.bytes.prefix(16)), 1)]
        expectRejected(signRaw(content, by: Keys.alice), .malformed, mentioning: "causal clock author key")
    }

    @Test func rejectsAClockWiderThanTheLimit() {
        var rng = SplitMix64(seed: 3)
        var wide = VectorClock([Keys.alice.id: 1])
        for _ in 0..<Limits.maxClockWidth { wide[NodeID(bytes: rng.bytes(32))!] = 1 }
        #expect(wide.width == Limits.maxClockWidth + 1)
        let causal = makeDraft(
            seq: 2, previous: EntryHash(bytes: [UInt8](repeating: 1, count: 32)), clock: wide,
            body: .receipt(delivered: .init(), read: .init()))
        expectRejected(
            EntryCodec.encode(EntryCodec.sign(causal, with: Keys.alice)), .tooLarge, mentioning: "causal clock is")
        let receipt = makeDraft(
            seq: 1, previous: nil, clock: VectorClock(), body: .receipt(delivered: .init(), read: wide))
        expectRejected(
            EntryCodec.encode(EntryCodec.sign(receipt, with: Keys.alice)), .tooLarge, mentioning: "read clock is")
    }

    // MARK: Evolution

    @Test func anEntryWithoutABodyDecodesAsUnknown() throws {
        var content = rawMessageContent()
        content.body = nil
        let entry = try EntryCodec.decode(signRaw(content, by: Keys.alice))
        #expect(entry.body == .unknown)
        #expect(entry.kind == .unknown)
        #expect(entry.seq == 2)
        #expect(entry.clock == VectorClock([Keys.alice.id: 1]))
    }

    @Test func unknownFieldsAreIgnoredAndTheSignedBytesKept() throws {
        // Field 99, varint 1: something a newer version might add.
        let content = (try rawMessageContent().serializedBytes() as [UInt8]) + [0x98, 0x06, 0x01]
        let entry = try EntryCodec.decode(signRaw(content, by: Keys.alice))
        #expect(entry.content == content)
        #expect(entry.hash == EntryHash.of(content: content))
        #expect(entry.kind == .message)
    }
}

/// The react kind and what a message plaintext carries beyond its text (Protocol.md §4.5,
/// §4.7): sizes checked at decode, meaning only after opening.
@Suite("Reactions and replies on the wire")
struct ReactionWireTests {
    func react(_ sealed: [UInt8]) throws -> Entry {
        let (_, create) = try makeCreate(title: "")
        return EntryCodec.sign(
            makeDraft(
                seq: 2, previous: create.hash, clock: VectorClock([Keys.alice.id: 1]), body: .react(sealed: sealed)),
            with: Keys.alice)
    }

    @Test func aReactionRoundTripsAndOpensOnlyAsAReaction() throws {
        let (key, _) = try makeCreate(title: "")
        let target = MessageRef(author: Keys.bob.id, seq: 7)
        let sealed = try ConversationCipher.sealReaction(
            ReactionContent(target: target, emoji: "👍🏽", removed: true), key: key, conversationID: conversation,
            author: Keys.alice.id, seq: 2)
        let entry = try react(sealed)
        let decoded = try EntryCodec.decode(EntryCodec.encode(entry))
        #expect(decoded == entry && decoded.kind == .react)
        guard case .react(let body) = decoded.body else { throw WireError.malformed("kind") }
        let opened = try ConversationCipher.openReaction(
            body, key: key, conversationID: conversation, author: Keys.alice.id, seq: 2)
        #expect(opened == ReactionContent(target: target, emoji: "👍🏽", removed: true))
        // Bound to its position and its kind: another seq, or opening it as a message, fails.
        #expect(throws: CryptoError.self) {
            try ConversationCipher.openReaction(
                body, key: key, conversationID: conversation, author: Keys.alice.id, seq: 3)
        }
        #expect(throws: CryptoError.self) {
            try ConversationCipher.openMessage(
                body, key: key, conversationID: conversation, author: Keys.alice.id, seq: 2)
        }
    }

    @Test func aSealedReactionIsBoundedBeforeAnythingElse() throws {
        let limit = ConversationCipher.maxReactionPlaintextBytes + ConversationCipher.overhead
        #expect(throws: WireError.tooLarge("sealed reaction", limit: limit, actual: limit + 1)) {
            try EntryCodec.decode(EntryCodec.encode(try react([UInt8](repeating: 1, count: limit + 1))))
        }
        #expect(throws: WireError.self) {
            try EntryCodec.decode(EntryCodec.encode(try react([UInt8](repeating: 1, count: 39))))
        }
        _ = try EntryCodec.decode(EntryCodec.encode(try react([UInt8](repeating: 1, count: limit))))
        // The longest reaction that can be written fits.
        let (key, _) = try makeCreate(title: "")
        let longest = try ConversationCipher.sealReaction(
            ReactionContent(
                target: MessageRef(author: Keys.bob.id, seq: Limits.maxSeq), emoji: "👩🏽‍❤️‍💋‍👨🏿", removed: true),
            key: key, conversationID: conversation, author: Keys.alice.id, seq: 2)
        #expect(longest.count <= limit)
    }

    @Test func aReactionWithoutATargetOrAnEmojiDoesNotOpen() throws {
        var plaintext = Confab_V1_ReactionPlaintext()
        plaintext.emoji = "👍"
        #expect(throws: CryptoError.self) { try ConversationCipher.decodeReaction(plaintext) }
        plaintext.target.author = Data(repeating: 1, count: 31)
        plaintext.target.seq = 1
        #expect(throws: CryptoError.self) { try ConversationCipher.decodeReaction(plaintext) }
        plaintext.target.author = Data(Keys.bob.id.bytes)
        plaintext.target.seq = 0
        #expect(throws: CryptoError.self) { try ConversationCipher.decodeReaction(plaintext) }
        plaintext.target.seq = 1
        plaintext.emoji = "two words"
        #expect(throws: CryptoError.self) { try ConversationCipher.decodeReaction(plaintext) }
        plaintext.emoji = "👍"
        #expect(try ConversationCipher.decodeReaction(plaintext).target == MessageRef(author: Keys.bob.id, seq: 1))
    }

    @Test func aMessageCarriesItsReplyAndMentionsAndDropsMalformedOnes() throws {
        let (key, _) = try makeCreate(title: "")
        let content = MessageContent(
            text: "@bob yes", replyTo: MessageRef(author: Keys.bob.id, seq: 3),
            mentions: [Mention(person: Keys.bob.id, start: 0, length: 4)])
        let sealed = try ConversationCipher.sealMessage(
            content, key: key, conversationID: conversation, author: Keys.alice.id, seq: 2)
        #expect(
            try ConversationCipher.openMessageContent(
                sealed, key: key, conversationID: conversation, author: Keys.alice.id, seq: 2) == content)
        #expect(
            try ConversationCipher.openMessage(
                sealed, key: key, conversationID: conversation, author: Keys.alice.id, seq: 2) == "@bob yes")
        var plaintext = Confab_V1_MessagePlaintext()
        plaintext.text = "hi"
        plaintext.replyTo.author = Data([1, 2, 3])
        plaintext.replyTo.seq = 3
        var bad = Confab_V1_Mention()
        bad.key = Data([9])
        plaintext.mentions = [bad]
        let decoded = ConversationCipher.decodeContent(plaintext)
        #expect(decoded == MessageContent(text: "hi"), "the text stays, the malformed reference and mention go")
    }
}
