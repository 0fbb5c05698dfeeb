import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

@Suite("Conversation list, flags and unread counts")
struct ConversationListTests {
    @Test func pinnedFirstThenLastActivity() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (c1, _) = try alice.createConversation(with: [Keys.bob.id], now: at(10))
        let (c2, _) = try alice.createConversation(with: [Keys.carol.id], now: at(20))
        let (c3, _) = try alice.createConversation(with: [Keys.bob.id, Keys.carol.id], now: at(30))
        #expect(try alice.conversations().map(\.id) == [c3, c2, c1])

        _ = try alice.sendMessage("bump", to: c1, now: at(40))
        #expect(try alice.conversations().map(\.id) == [c1, c3, c2])
        #expect(try alice.conversation(c1)?.lastActivityAt == at(40))

        try alice.setFlag(.pinned, true, on: c2)
        #expect(try alice.conversations().map(\.id) == [c2, c1, c3])
        #expect(try alice.conversations().map(\.isPinned) == [true, false, false])
        try alice.setFlag(.pinned, true, on: c3)
        #expect(try alice.conversations().map(\.id) == [c3, c2, c1])

        // Activity from someone else counts too.
        try sync(c1, from: alice, to: bob)
        _ = try bob.sendMessage("reply", to: c1, now: at(50))
        try sync(c1, from: bob, to: alice)
        try alice.setFlag(.pinned, false, on: c3)
        #expect(try alice.conversations().map(\.id) == [c2, c1, c3])
        #expect(try alice.conversation(c1)?.lastActivityAt == at(50))
    }

    @Test func archiveFilter() throws {
        let alice = try makeStore(Keys.alice)
        let (c1, _) = try alice.createConversation(with: [Keys.bob.id], now: at(10))
        let (c2, _) = try alice.createConversation(with: [Keys.carol.id], now: at(20))
        try alice.setFlag(.archived, true, on: c1)
        #expect(try alice.conversations().map(\.id) == [c2])
        #expect(try alice.conversations(.inbox).map(\.id) == [c2])
        #expect(try alice.conversations(.archived).map(\.id) == [c1])
        #expect(try alice.conversations(.archived).first?.isArchived == true)
        #expect(try alice.conversations(.all).map(\.id) == [c2, c1])
        // Archived conversations stay archived when a message arrives.
        _ = try alice.sendMessage("still archived", to: c1, now: at(30))
        #expect(try alice.conversations(.archived).map(\.id) == [c1])
        try alice.setFlag(.archived, false, on: c1)
        #expect(try alice.conversations().map(\.id) == [c1, c2])
        #expect(try alice.conversations(.archived).isEmpty)
    }

    @Test func theFirstScreenfulIsThePrefixOfTheWholeList() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        var ids: [ConversationID] = []
        for index in 0..<12 {
            let (id, _) = try alice.createConversation(with: [Keys.bob.id], now: at(index * 10))
            ids.append(id)
            if index % 3 == 0 {
                try sync(id, from: alice, to: bob)
                _ = try bob.sendMessage("unread \(index)", to: id, now: at(index * 10 + 1))
                try sync(id, from: bob, to: alice)
            }
        }
        try alice.setFlag(.pinned, true, on: ids[2])
        try alice.setFlag(.archived, true, on: ids[5])
        for filter in [ConversationFilter.inbox, .archived, .all] {
            let everything = try alice.conversations(filter)
            for limit in [1, 5, 50] {
                #expect(try alice.conversations(filter, limit: limit) == Array(everything.prefix(limit)))
            }
        }
        #expect(try alice.conversations(limit: 3).first?.id == ids[2])
    }

    @Test func mutedFlagIsReported() throws {
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id])
        #expect(try alice.conversation(id)?.isMuted == false)
        try alice.setFlag(.muted, true, on: id)
        #expect(try alice.conversation(id)?.isMuted == true)
    }

    /// Alice writes three messages; Bob receives them. Returns both stores and the id.
    private func threeFromAlice() throws -> (alice: ConfabStore, bob: ConfabStore, id: ConversationID) {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "one", now: at(1))
        _ = try alice.sendMessages(["two", "three"], to: id, now: at(2))
        try sync(id, from: alice, to: bob)
        return (alice, bob, id)
    }

    @Test func unreadCountsAndMarkRead() throws {
        let (alice, bob, id) = try threeFromAlice()
        #expect(try bob.unreadCount(id) == 3)
        #expect(try bob.conversation(id)?.unreadCount == 3)
        #expect(try bob.conversation(id)?.badgeCount == 3)
        #expect(try bob.totalUnread() == 3)
        #expect(try alice.unreadCount(id) == 0)

        // My own messages are never unread.
        _ = try bob.sendMessage("reading…", to: id, now: at(3))
        #expect(try bob.unreadCount(id) == 3)

        let receipt = try #require(try bob.markRead(id, now: at(4)))
        #expect(receipt.author == Keys.bob.id)
        #expect(receipt.seq == 2)
        #expect(
            receipt.body == .receipt(delivered: VectorClock([Keys.alice.id: 4]), read: VectorClock([Keys.alice.id: 4])))
        #expect(try bob.unreadCount(id) == 0)
        #expect(try bob.totalUnread() == 0)
        #expect(try bob.clock(of: id) == VectorClock([Keys.alice.id: 4, Keys.bob.id: 2]))
        // The receipt is a real entry, queued to travel.
        #expect(try bob.outbox().map(\.seq) == [1, 2])

        let held = try snapshot(bob)
        #expect(try bob.markRead(id, now: at(5)) == nil)
        #expect(try snapshot(bob) == held)

        _ = try alice.sendMessage("four", to: id, now: at(6))
        try sync(id, from: alice, to: bob)
        #expect(try bob.unreadCount(id) == 1)
        let second = try #require(try bob.markRead(id, now: at(7)))
        #expect(
            second.body == .receipt(delivered: VectorClock([Keys.alice.id: 5]), read: VectorClock([Keys.alice.id: 5])))
        #expect(try bob.unreadCount(id) == 0)
    }

    /// If receipts called for receipts, two people with the chat open would acknowledge
    /// each other's acknowledgements forever.
    @Test func receiptsDoNotCallForReceipts() throws {
        let (alice, bob, id) = try threeFromAlice()
        #expect(try bob.markRead(id, now: at(4)) != nil)
        try sync(id, from: bob, to: alice)
        #expect(try alice.unreadCount(id) == 0)
        #expect(try alice.markRead(id, now: at(5)) == nil)
        #expect(try alice.clock(of: id)[Keys.alice.id] == 4)

        // A real message from Bob does call for one.
        _ = try bob.sendMessage("got them", to: id, now: at(6))
        try sync(id, from: bob, to: alice)
        #expect(try alice.unreadCount(id) == 1)
        let receipt = try #require(try alice.markRead(id, now: at(7)))
        guard case .receipt(_, let read) = receipt.body else {
            Issue.record("markRead wrote \(receipt.kind)")
            return
        }
        #expect(read.covers(author: Keys.bob.id, seq: 2))
        // And that receipt, reaching Bob, asks nothing of him.
        try sync(id, from: alice, to: bob)
        #expect(try bob.markRead(id, now: at(8)) == nil)
    }

    @Test func totalUnreadSkipsMutedAndArchived() throws {
        let (alice, bob, id) = try threeFromAlice()
        let (other, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "elsewhere", now: at(9))
        try sync(other, from: alice, to: bob)
        #expect(try bob.totalUnread() == 4)
        try bob.setFlag(.muted, true, on: id)
        #expect(try bob.totalUnread() == 1)
        #expect(try bob.unreadCount(id) == 3)
        try bob.setFlag(.muted, false, on: id)
        try bob.setFlag(.archived, true, on: other)
        #expect(try bob.totalUnread() == 3)
    }

    @Test func markedUnreadShowsABadgeUntilRead() throws {
        let (_, bob, id) = try threeFromAlice()
        #expect(try bob.markRead(id) != nil)
        try bob.setFlag(.markedUnread, true, on: id)
        let marked = try #require(try bob.conversation(id))
        #expect(marked.isMarkedUnread)
        #expect(marked.unreadCount == 0)
        #expect(marked.badgeCount == 1)
        // Clearing the mark with nothing new to read sends nothing.
        #expect(try bob.markRead(id) == nil)
        let cleared = try #require(try bob.conversation(id))
        #expect(!cleared.isMarkedUnread)
        #expect(cleared.badgeCount == 0)
    }

    @Test func latestConversationPrefersOneToOne() throws {
        let alice = try makeStore(Keys.alice)
        let (direct, _) = try alice.createConversation(with: [Keys.bob.id], now: at(1))
        let (group, _) = try alice.createConversation(with: [Keys.bob.id, Keys.carol.id], now: at(2))
        #expect(try alice.latestConversation(with: Keys.bob.id) == direct)
        #expect(try alice.latestConversation(with: Keys.carol.id) == group)
        #expect(try alice.latestConversation(with: Keys.mallory.id) == nil)
        #expect(Set(try alice.conversationIDs()) == [direct, group])
    }
}
