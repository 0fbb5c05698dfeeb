import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

@Suite("Delivery status in the store")
struct DeliveryStatusStoreTests {
    private func statuses(_ store: ConfabStore, _ id: ConversationID) throws -> [DeliveryStatus?] {
        try store.history(id).map(\.status)
    }

    /// A receipt that says "stored" but not "read", as a node writes when entries arrive
    /// while nobody looks.
    private func deliveredReceipt(_ store: ConfabStore, _ id: ConversationID) throws {
        var held = try store.clock(of: id)
        held[store.me] = 0
        try author(store, in: id, body: .receipt(delivered: held, read: VectorClock()))
    }

    @Test func sendingSentDeliveredRead() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "ping", now: at(1))
        #expect(try statuses(alice, id) == [.sending])
        #expect(try alice.conversation(id)?.lastMessage?.status == .sending)

        try sync(id, from: alice, to: bob, ack: false)
        #expect(try statuses(alice, id) == [.sending])
        try alice.recordPeerClock(try bob.clock(of: id), peer: Keys.bob.id, conversation: id, sentUpTo: 2)
        #expect(try statuses(alice, id) == [.sent])
        #expect(try alice.outbox().isEmpty)

        try deliveredReceipt(bob, id)
        try sync(id, from: bob, to: alice)
        #expect(try statuses(alice, id) == [.delivered])
        #expect(try alice.conversation(id)?.lastMessage?.status == .delivered)

        #expect(try bob.markRead(id) != nil)
        try sync(id, from: bob, to: alice)
        #expect(try statuses(alice, id) == [.read])

        // Status is per message: a new one starts over.
        _ = try alice.sendMessage("pong?", to: id, now: at(2))
        #expect(try statuses(alice, id) == [.read, .sending])
        // Bob's side shows no status on messages that are not his.
        #expect(try statuses(bob, id) == [nil])
    }

    @Test func groupNeedsEveryReceipt() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let carol = try makeStore(Keys.carol)
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id, Keys.carol.id], firstMessage: "team lunch?", now: at(1))
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: carol)
        #expect(try statuses(alice, id) == [.sent])

        #expect(try bob.markRead(id) != nil)
        try sync(id, from: bob, to: alice)
        #expect(try statuses(alice, id) == [.sent])

        try deliveredReceipt(carol, id)
        try sync(id, from: carol, to: alice)
        #expect(try statuses(alice, id) == [.delivered])

        #expect(try carol.markRead(id) != nil)
        try sync(id, from: carol, to: alice)
        #expect(try statuses(alice, id) == [.read])
    }

    @Test func receiptsArrivingOutOfDateDoNotMoveStatusBack() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "one", now: at(1))
        try sync(id, from: alice, to: bob)
        #expect(try bob.markRead(id) != nil)
        // An older-looking receipt written after the read one (it names less).
        try author(bob, in: id, body: .receipt(delivered: VectorClock([Keys.alice.id: 1]), read: VectorClock()))
        try sync(id, from: bob, to: alice)
        #expect(try statuses(alice, id) == [.read])
    }
}
