import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Nobody takes a protocol 1 create from a peer (Protocol.md §4.9): its id proves nothing
/// about who may claim it. Only those held before the upgrade stay.
@Suite("Protocol 1 creates")
struct ProtocolOneCreateTests {
    /// Alice's create of protocol 1 (random id, no nonce, no commitment) with Bob.
    static func legacyCreate(
        claiming claimed: ConversationID? = nil, by author: SigningKeyPair = Keys.alice
    ) throws -> (raw: [UInt8], key: SecureBytes, id: ConversationID) {
        let key = ConversationCipher.generateKey()
        let id = claimed ?? ConversationID(bytes: Random.bytes(16))!
        let body = CreateBody(
            participants: try [NodeID(author.publicKey), Keys.bob.id].map {
                CreateBody.Participant(id: $0, sealedKey: try ConversationCipher.sealKey(key, to: $0))
            },
            sealedTitle: try ConversationCipher.sealTitle("Old times", key: key, conversationID: id), nonce: [],
            keyCommitment: [])
        let entry = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 1_700_000_000_000, clock: VectorClock(),
                body: .create(body)), with: author)
        return (EntryCodec.encode(entry), key, id)
    }

    /// Even the member it names: a protocol 1 create could claim any id, a derived one too,
    /// so one taken from a peer would let anyone who learned an id take it first.
    @Test func aMemberItNamesRefusesItFromAPeer() throws {
        let (raw, _, id) = try Self.legacyCreate()
        let bob = try makeStore(Keys.bob)
        let error = #expect(throws: AppendRejection.self) { try bob.append(raw) }
        #expect(error?.category == .legacyCreate)
        #expect(try bob.conversation(id) == nil)
    }

    @Test func aRelayThatDoesNotHoldItRefusesItAndTheSessionGoesOn() throws {
        let (raw, _, _) = try Self.legacyCreate()
        let relay = try makeStore(Keys.relay)
        let error = #expect(throws: AppendRejection.self) { try relay.append(raw, keepsOthers: true) }
        #expect(error?.category == .legacyCreate)
        #expect(error?.isSessionError == false)
        // A create of today, offered alike, is taken: the refusal is about protocol 1 alone.
        let alice = try makeStore(Keys.alice)
        let created = try alice.createConversation(with: [Keys.bob.id]).id
        let today = try #require(try missingEntries(created, from: alice, to: relay).first)
        guard case .appended = try relay.append(today, keepsOthers: true) else {
            Issue.record("the relay refused a create of this version")
            return
        }
    }

    /// The lie this rule is for: Mallory learned the id of a conversation Alice started with
    /// Bob and sends Bob a protocol 1 create claiming it first. Bob refuses it, and takes
    /// Alice's real create when it comes.
    @Test func aCreateClaimingSomeoneElsesDerivedIdIsRefusedAndTheRealOneTaken() throws {
        let alice = try makeStore(Keys.alice)
        let real = try alice.createConversation(with: [Keys.bob.id], title: "Ours").id
        let (forged, _, _) = try Self.legacyCreate(claiming: real, by: Keys.mallory)
        let bob = try makeStore(Keys.bob)
        let error = #expect(throws: AppendRejection.self) { try bob.append(forged) }
        #expect(error?.category == .legacyCreate)
        for raw in try missingEntries(real, from: alice, to: bob) { _ = try bob.append(raw) }
        #expect(try bob.conversation(real)?.title == "Ours")
        #expect(try bob.members(of: real).members.map(\.id) == [Keys.alice.id, Keys.bob.id])
    }
}
