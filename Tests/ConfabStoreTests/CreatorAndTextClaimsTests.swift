import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// What a creator or an author can claim in an entry that a receiver must not simply
/// believe (Protocol.md §4.5, §7).
@Suite struct CreatorAndTextClaimsTests {
    /// A create entry of Alice's that seals `sealedToBob` to Bob while committing to `key`.
    private func create(key: SecureBytes, sealedToBob: SecureBytes) throws -> (ConversationID, [UInt8]) {
        let nonce = [UInt8](repeating: 5, count: ConversationGenesis.nonceLength)
        let id = ConversationGenesis.conversationID(creator: Keys.alice.id, nonce: nonce)
        let body = CreateBody(
            participants: [
                .init(id: Keys.alice.id, sealedKey: try ConversationCipher.sealKey(key, to: Keys.alice.id)),
                .init(id: Keys.bob.id, sealedKey: try ConversationCipher.sealKey(sealedToBob, to: Keys.bob.id)),
            ],
            sealedTitle: [], nonce: nonce, keyCommitment: ConversationGenesis.keyCommitment(key, conversationID: id))
        let entry = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 1_900_000_000_000, clock: VectorClock(),
                body: .create(body)),
            with: Keys.alice)
        return (id, EntryCodec.encode(entry))
    }

    @Test func aKeyOtherThanTheCommittedOneIsShownAndAcknowledgesNothing() throws {
        let bob = try makeStore(Keys.bob)
        let key = ConversationCipher.generateKey()
        let (id, bytes) = try create(key: key, sealedToBob: ConversationCipher.generateKey())
        try bob.append(bytes)
        let summary = try #require(try bob.conversation(id))
        #expect(summary.keyProblem)
        #expect(summary.warnings.first?.contains("does not open") == true)
        // Alice's message under the real key: stored, unreadable, and not acknowledged.
        let sealed = try ConversationCipher.sealMessage(
            "can you read this?", key: key, conversationID: id, author: Keys.alice.id, seq: 2)
        let message = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 2, previous: try EntryCodec.decodeUnverified(bytes).hash,
                timestamp: 1_900_000_000_001, clock: VectorClock([Keys.alice.id: 1]), body: .message(sealed: sealed)),
            with: Keys.alice)
        try bob.append(EntryCodec.encode(message))
        #expect(try bob.history(id).map(\.text) == [nil])
        #expect(try bob.acknowledgeDelivery(id) == nil)
        #expect(try bob.markRead(id) == nil)
    }

    @Test func theCommittedKeyOpensAsUsual() throws {
        let bob = try makeStore(Keys.bob)
        let key = ConversationCipher.generateKey()
        let (id, bytes) = try create(key: key, sealedToBob: key)
        try bob.append(bytes)
        #expect(try bob.conversation(id)?.keyProblem == false)
    }

    @Test func textNoSenderMayWriteIsNeverShown() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hi", now: at(0))
        try sync(id, from: alice, to: bob)
        let body = try sealedMessage("   \n ", bob, in: id, author: Keys.bob.id, seq: 1)
        let blank = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 1_900_000_000_500,
                clock: VectorClock([Keys.alice.id: 2]), body: body),
            with: Keys.bob)
        #expect(try alice.append(EntryCodec.encode(blank)) != .duplicate)
        #expect(try alice.history(id).map(\.text) == ["hi"])
        #expect(try alice.unreadCount(id) == 0)
    }

    @Test func aFutureTimestampDoesNotPinAConversation() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (early, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "old", now: at(0))
        try sync(early, from: alice, to: bob)
        let body = try sealedMessage("from the future", bob, in: early, author: Keys.bob.id, seq: 1)
        let future = EntryCodec.sign(
            EntryDraft(
                conversationID: early, seq: 1, previous: nil, timestamp: Limits.timestampRange.upperBound,
                clock: VectorClock([Keys.alice.id: 2]), body: body),
            with: Keys.bob)
        try alice.append(EntryCodec.encode(future), now: at(100))
        let (later, _) = try alice.createConversation(with: [Keys.carol.id], firstMessage: "new", now: at(1000))
        #expect(try alice.conversations().map(\.id) == [later, early])
    }
}
