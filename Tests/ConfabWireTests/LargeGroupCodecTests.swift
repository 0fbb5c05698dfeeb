import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// What a large group's create and members entries must show by themselves (Protocol.md
/// §19.2, §19.3): wraps of 32 bytes each, as many as the body says, and never beside sealed
/// keys or shared history.
@Suite struct LargeGroupCodecTests {
    private let ephemeral = Data(repeating: 9, count: 32)

    private func wraps(_ count: Int, bytes: Int? = nil) -> Confab_V1_KeyWraps {
        var wraps = Confab_V1_KeyWraps()
        wraps.ephemeral = ephemeral
        wraps.wraps = Data(repeating: 5, count: bytes ?? count * 32)
        return wraps
    }

    /// Alice's large create of `count` participants (herself first), unsigned fields set as
    /// a writer would, then changed by `change`.
    private func create(
        _ count: Int, change: (inout Confab_V1_CreateBody) -> Void = { _ in }
    ) -> [UInt8] {
        var body = Confab_V1_CreateBody()
        body.participants = ([Keys.alice.id] + (1..<count).map { _ in NodeID(SigningKeyPair.generate().publicKey) })
            .map { id in
                var participant = Confab_V1_Participant()
                participant.key = Data(id.bytes)
                return participant
            }
        body.nonce = Data(conversationNonce)
        body.keyCommitment = Data(repeating: 4, count: 32)
        body.wraps = wraps(count)
        change(&body)
        var content = Confab_V1_EntryContent()
        content.conversationID = Data(conversation.bytes)
        content.author = Data(Keys.alice.id.bytes)
        content.seq = 1
        content.timestampMs = 1_700_000_000_000
        content.create = body
        return signRaw(content, by: Keys.alice)
    }

    /// Alice's members entry at seq 2, changed by `change`.
    private func members(_ change: (inout Confab_V1_MembersBody) -> Void) -> [UInt8] {
        var body = Confab_V1_MembersBody()
        body.keyCommitment = Data(repeating: 4, count: 32)
        change(&body)
        var content = rawMessageContent()
        content.members = body
        return signRaw(content, by: Keys.alice)
    }

    @Test func aLargeCreateOf512WrapsEachParticipantAndFitsAnEntry() throws {
        let bytes = create(Limits.maxLargeGroupChange)
        #expect(bytes.count <= Limits.maxEntryBytes)
        let entry = try EntryCodec.decode(bytes)
        guard case .create(let body) = entry.body else { Issue.record("not a create"); return }
        #expect(body.isLarge)
        #expect(body.wrapped?.count == Limits.maxLargeGroupChange)
        #expect(body.participants.allSatisfy { $0.sealedKey.isEmpty })
    }

    @Test func aLargeCreateThatBreaksItsShapeIsMalformed() {
        expectRejected(create(Limits.maxLargeGroupChange + 1), .tooLarge, mentioning: "participant list")
        expectRejected(create(3) { $0.wraps = wraps(2) }, .malformed, mentioning: "2 key wraps for 3")
        expectRejected(create(3) { $0.wraps = wraps(0, bytes: 95) }, .malformed, mentioning: "key wraps of 95")
        expectRejected(create(3) { $0.wraps.ephemeral = Data(count: 31) }, .malformed, mentioning: "ephemeral")
        expectRejected(
            create(3) { $0.participants[1].sealedKey = Data(repeating: 1, count: 80) }, .malformed,
            mentioning: "sealed conversation key length")
        // Without wraps, the limits of a group of 64 hold.
        expectRejected(
            create(65) { $0.clearWraps() }, .tooLarge, mentioning: "participant list")
    }

    @Test func aLargeMembersEntryCarriesWrapsAloneAndAnAddOnePerAddedKey() throws {
        let added = (0..<3).map { _ in Data(NodeID(SigningKeyPair.generate().publicKey).bytes) }
        let add = members {
            $0.add = added
            $0.wraps = wraps(3)
        }
        guard case .members(let body) = try EntryCodec.decode(add).body else { Issue.record("not members"); return }
        #expect(body.derivesKey)
        expectRejected(
            members {
                $0.add = added
                $0.wraps = wraps(2)
            }, .malformed, mentioning: "2 key wraps for 3")
        // A removal's wraps go to the members after it, which only the store can count.
        let removal = members {
            $0.remove = [added[0]]
            $0.wraps = wraps(7)
        }
        #expect(throws: Never.self) { try EntryCodec.decode(removal) }
        expectRejected(
            members {
                $0.remove = [added[0]]
                $0.wraps = wraps(2)
                var sealed = Confab_V1_Participant()
                sealed.key = Data(Keys.alice.id.bytes)
                sealed.sealedKey = Data(repeating: 1, count: ConversationCipher.sealedKeyLength)
                $0.keys = [sealed]
            }, .malformed, mentioning: "both wrapped and sealed")
        expectRejected(
            members {
                $0.remove = [Data(Keys.alice.id.bytes)]
                $0.keyCommitment = Data()
                $0.wraps = wraps(1)
            }, .malformed, mentioning: "a leave that also")
        expectRejected(
            members {
                $0.add = (0...Limits.maxLargeGroupChange).map { _ in
                    Data(NodeID(SigningKeyPair.generate().publicKey).bytes)
                }
                $0.wraps = wraps(Limits.maxLargeGroupChange + 1)
            }, .tooLarge, mentioning: "added key list")
        expectRejected(
            members {
                $0.remove = [added[0]]
                $0.wraps = wraps(Limits.maxLargeGroupMembers + 1)
            }, .tooLarge, mentioning: "key wraps")
    }
}
