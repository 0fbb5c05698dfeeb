import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

/// Receipts are entries that every member stores, so a group where everyone acknowledges
/// everything costs the square of its size (Protocol.md §12.4): past 32 members nobody
/// writes them, and "sent" is as far as a message's status goes.
@Suite struct LargeGroupReceiptTests {
    /// Alice's group of Bob and `others` strangers, with a message Bob has stored.
    private func group(others: Int) throws -> (alice: ConfabStore, bob: ConfabStore, ConversationID, Entry) {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let strangers = (0..<others).map { _ in NodeID(SigningKeyPair.generate().publicKey) }
        let (id, message) = try alice.createConversation(
            with: [Keys.bob.id] + strangers, title: "everyone", firstMessage: "all hands", now: at(0))
        try sync(id, from: alice, to: bob)
        return (alice, bob, id, try #require(message))
    }

    @Test func upTo32MembersEachAcknowledgesAndReads() throws {
        let (alice, bob, id, message) = try group(others: Limits.maxParticipantsWithReceipts - 2)
        #expect(try bob.participants(of: id).count == Limits.maxParticipantsWithReceipts)
        #expect(try bob.acknowledgeDelivery(id, now: at(1)) != nil)
        #expect(try bob.markRead(id, now: at(2)) != nil)
        try sync(id, from: bob, to: alice)
        // Bob's receipts count; the strangers' are missing, so not yet "delivered".
        let receipts = try alice.read { db in try ConfabStore.receipts(in: id, db: db) }
        #expect(receipts[Keys.bob.id]?.read.covers(author: Keys.alice.id, seq: message.seq) == true)
    }

    @Test func pastThatNobodyWritesAReceiptAndTheStatusStopsAtSent() throws {
        let (alice, bob, id, message) = try group(others: Limits.maxParticipantsWithReceipts - 1)
        #expect(try bob.participants(of: id).count == Limits.maxParticipantsWithReceipts + 1)
        let entriesBefore = try bob.clock(of: id)
        #expect(try bob.acknowledgeDelivery(id, now: at(1)) == nil)
        #expect(try bob.markRead(id, now: at(2)) == nil)
        #expect(try bob.clock(of: id) == entriesBefore)
        // Reading still clears Bob's own unread count: that is his alone.
        #expect(try bob.conversation(id)?.unreadCount == 0)
        #expect(try alice.deliveryStatus(id, seq: message.seq) == .sent)
    }
}
