import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

@Suite("Deleting conversations")
struct DeleteTests {
    @Test func deletedMessagesStayDeleted() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "one", now: at(1))
        _ = try alice.sendEach(["two", "three"], to: id, now: at(2))
        try sync(id, from: alice, to: bob)
        _ = try bob.sendMessage("bob here", to: id, now: at(3))
        try sync(id, from: bob, to: alice)
        try bob.setFlag(.pinned, true, on: id)
        let clock = try bob.clock(of: id)

        try bob.deleteConversation(id, now: at(4))
        #expect(try bob.conversations(.all).isEmpty)
        #expect(try bob.conversation(id) == nil)
        #expect(try bob.conversationIDs().isEmpty)
        #expect(try bob.history(id).isEmpty)
        #expect(try bob.unreadCount(id) == 0)
        #expect(try bob.totalUnread() == 0)
        #expect(try bob.clock(of: id) == clock)
        #expect(try bob.entries(in: id, author: Keys.alice.id, after: 0).isEmpty)
        #expect(try rowCount(bob, "message") == 0)

        // Sync offers everything again: nothing comes back.
        let again = try alice.entries(in: id, author: Keys.alice.id, after: 0)
        #expect(try bob.append(batch: again).map { try $0.get() } == Array(repeating: .duplicate, count: 4))
        for bytes in again { #expect(try bob.append(bytes) == .duplicate) }
        #expect(try missingEntries(id, from: alice, to: bob).isEmpty)
        #expect(try bob.history(id).isEmpty)
        #expect(try bob.conversation(id) == nil)

        // Something new brings the conversation back, with only what is new.
        _ = try alice.sendMessage("are you there?", to: id, now: at(5))
        #expect(try sync(id, from: alice, to: bob) == 1)
        #expect(try bob.history(id).map(\.text) == ["are you there?"])
        let summary = try #require(try bob.conversation(id))
        #expect(summary.unreadCount == 1)
        #expect(!summary.isPinned)
        #expect(try bob.conversations().map(\.id) == [id])
        #expect(try bob.integrityCheck() == ["ok"])
    }

    @Test func myUnsentEntriesSurviveSoMyLogHasNoGap() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "delivered", now: at(1))
        try sync(id, from: alice, to: bob)
        _ = try alice.sendMessages(["queued one", "queued two"], to: id, now: at(2))
        #expect(try alice.outbox().map(\.seq) == [3, 4])

        try alice.deleteConversation(id, now: at(3))
        #expect(try alice.conversation(id) == nil)
        #expect(try alice.history(id).isEmpty)
        // Acknowledged entries are gone; unacknowledged ones wait, as ciphertext.
        let kept = try alice.entries(in: id, author: Keys.alice.id, after: 0)
        #expect(try kept.map { try EntryCodec.decodeUnverified($0).seq } == [3, 4])
        #expect(try alice.outbox().map(\.seq) == [3, 4])

        #expect(try sync(id, from: alice, to: bob) == 2)
        #expect(try bob.history(id).map(\.text) == ["delivered", "queued one", "queued two"])
        #expect(try alice.outbox().isEmpty)

        // Writing again after the delete continues the same chain.
        let next = try alice.sendMessage("back again", to: id, now: at(4))
        #expect(next.seq == 5)
        #expect(try sync(id, from: alice, to: bob) == 1)
        #expect(try bob.history(id).last?.text == "back again")
        #expect(try alice.history(id).map(\.text) == ["back again"])
    }

    @Test func aDeletedConversationNeverSyncedKeepsItsCreate() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "draft", now: at(1))
        try alice.deleteConversation(id)
        #expect(try alice.entries(in: id, author: Keys.alice.id, after: 0).count == 2)
        #expect(try sync(id, from: alice, to: bob) == 2)
        #expect(try bob.history(id).map(\.text) == ["draft"])
    }
}
