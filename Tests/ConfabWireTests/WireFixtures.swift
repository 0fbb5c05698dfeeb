import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import Foundation
import Testing

@testable import ConfabWire

/// Fixed identities: tests see the same keys on every run.
enum Keys {
    static let alice = try! SigningKeyPair(seed: [UInt8](repeating: 0xA1, count: 32))
    static let bob = try! SigningKeyPair(seed: [UInt8](repeating: 0xB2, count: 32))
    static let carol = try! SigningKeyPair(seed: [UInt8](repeating: 0xC3, count: 32))
    static let mallory = try! SigningKeyPair(seed: [UInt8](repeating: 0xD4, count: 32))
}

extension SigningKeyPair {
    var id: NodeID { NodeID(publicKey) }
}

/// Alice's conversation: its id is derived from her key and this nonce (Protocol.md §4.5).
let conversationNonce = [UInt8](repeating: 0x10, count: ConversationGenesis.nonceLength)
let conversation = ConversationGenesis.conversationID(creator: Keys.alice.id, nonce: conversationNonce)

/// The error decoding throws, or nil when the bytes were accepted.
func decodeError(_ bytes: [UInt8]) -> WireError? {
    do {
        _ = try EntryCodec.decode(bytes)
        return nil
    } catch {
        return error
    }
}

/// Asserts that decoding fails for the expected reason; the description check makes sure
/// the intended validation fired, not some earlier one.
func expectRejected(
    _ bytes: [UInt8], _ category: WireError.Category, mentioning phrase: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = decodeError(bytes) else {
        Issue.record("decoded although it should be rejected (\(phrase))", sourceLocation: sourceLocation)
        return
    }
    #expect(error.category == category, "\(error)", sourceLocation: sourceLocation)
    #expect(error.description.contains(phrase), "\(error)", sourceLocation: sourceLocation)
}

/// Wraps content bytes and a signature in the transmitted envelope, whatever they are.
func envelope(content: [UInt8], signature: [UInt8]) -> [UInt8] {
    var signed = Confab_V1_SignedEntry()
    signed.content = Data(content)
    signed.signature = Data(signature)
    return try! signed.serializedBytes()
}

/// Signs raw content properly, so that only what the test broke inside it is wrong.
func signRaw(_ content: [UInt8], by key: SigningKeyPair) -> [UInt8] {
    envelope(content: content, signature: key.sign(EntryDomain.signature + content))
}

func signRaw(_ content: Confab_V1_EntryContent, by key: SigningKeyPair) -> [UInt8] {
    signRaw(try! content.serializedBytes() as [UInt8], by: key)
}

func clockEntry(_ author: [UInt8], _ seq: UInt64) -> Confab_V1_ClockEntry {
    var entry = Confab_V1_ClockEntry()
    entry.author = Data(author)
    entry.seq = seq
    return entry
}

/// A well-formed message content by alice at seq 2, for tests that break one field.
func rawMessageContent() -> Confab_V1_EntryContent {
    var content = Confab_V1_EntryContent()
    content.conversationID = Data(conversation.bytes)
    content.author = Data(Keys.alice.id.bytes)
    content.seq = 2
    content.previous = Data(repeating: 7, count: 32)
    content.timestampMs = 1_700_000_000_000
    content.clock = [clockEntry(Keys.alice.id.bytes, 1)]
    var body = Confab_V1_MessageBody()
    body.sealed = Data(repeating: 1, count: ConversationCipher.overhead + 4)
    content.message = body
    return content
}

/// The conversation key and a signed create entry of alice's with the given participants.
func makeCreate(
    participants: [NodeID] = [Keys.alice.id, Keys.bob.id, Keys.carol.id], title: String = "Weekend plans ☀️",
    seq: UInt64 = 1, clock: VectorClock = VectorClock(), author: SigningKeyPair = Keys.alice
) throws -> (key: SecureBytes, entry: Entry) {
    let key = ConversationCipher.generateKey()
    let sealed = try participants.map {
        CreateBody.Participant(id: $0, sealedKey: try ConversationCipher.sealKey(key, to: $0))
    }
    let body = CreateBody(
        participants: sealed,
        sealedTitle: try ConversationCipher.sealTitle(title, key: key, conversationID: conversation),
        nonce: conversationNonce, keyCommitment: ConversationGenesis.keyCommitment(key, conversationID: conversation))
    let entry = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: seq,
            previous: seq == 1 ? nil : EntryHash(bytes: [UInt8](repeating: 3, count: 32)),
            timestamp: 1_700_000_000_000, clock: clock, body: .create(body)),
        with: author)
    return (key, entry)
}

func makeDraft(
    seq: UInt64, previous: EntryHash?, clock: VectorClock, body: EntryBody, timestamp: Int64 = 1_700_000_000_500
) -> EntryDraft {
    EntryDraft(
        conversationID: conversation, seq: seq, previous: previous, timestamp: timestamp, clock: clock, body: body)
}
