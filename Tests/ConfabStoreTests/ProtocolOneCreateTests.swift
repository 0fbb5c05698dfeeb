import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Who takes a protocol 1 create (Protocol.md §4.9): its members, as any create; never a relay
/// that does not hold it, since its id proves nothing about who may claim it.
@Suite("Protocol 1 creates")
struct ProtocolOneCreateTests {
    /// Alice's create of protocol 1 (random id, no nonce, no commitment) with Bob.
    static func legacyCreate() throws -> (raw: [UInt8], key: SecureBytes, id: ConversationID) {
        let key = ConversationCipher.generateKey()
        let id = ConversationID(bytes: Random.bytes(16))!
        let body = CreateBody(
            participants: try [Keys.alice.id, Keys.bob.id].map {
                CreateBody.Participant(id: $0, sealedKey: try ConversationCipher.sealKey(key, to: $0))
            },
            sealedTitle: try ConversationCipher.sealTitle("Old times", key: key, conversationID: id), nonce: [],
            keyCommitment: [])
        let entry = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 1_700_000_000_000, clock: VectorClock(),
                body: .create(body)), with: Keys.alice)
        return (EntryCodec.encode(entry), key, id)
    }

    @Test func aMemberTakesItAndItsKeyUnchecked() throws {
        let (raw, _, id) = try Self.legacyCreate()
        let bob = try makeStore(Keys.bob)
        guard case .appended = try bob.append(raw) else {
            Issue.record("Bob did not take the create that names him")
            return
        }
        #expect(try bob.conversation(id)?.title == "Old times")
        #expect(try bob.members(of: id).members.map(\.id) == [Keys.alice.id, Keys.bob.id])
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
}
