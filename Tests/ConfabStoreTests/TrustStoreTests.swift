import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

@Suite("Trust: names bound on first use, blocked authors hidden")
struct TrustStoreTests {
    @Test func aNewKeyClaimingAKnownNameIsKeptApartAndFlagged() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try alice.setDisplayName("Alice")
        #expect(try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: "10.0.0.2:7461", now: at(1)) == nil)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hi bob", now: at(2))
        try syncBoth(id, alice, bob)
        _ = try bob.sendMessage("hi alice", to: id, now: at(3))
        try sync(id, from: bob, to: alice)

        // Mallory introduces herself as "bob" (any case) with another key.
        let holder = try alice.notePeerSeen(Keys.mallory.id, suggestedName: "bob", address: "10.0.0.9:7461", now: at(4))
        #expect(holder == Keys.bob.id)
        let mallory = try #require(try alice.peer(Keys.mallory.id))
        #expect(mallory.name == "bob (\(Keys.mallory.id.shortHex))")
        #expect(mallory.claimedName == "bob")
        #expect(mallory.trust == .unverified)
        #expect(mallory.warning?.contains("introduced itself as \"bob\"") == true)
        #expect(mallory.warning?.contains("confab verify \(Keys.mallory.id.shortHex)") == true)

        // Bob and his conversation are untouched.
        let realBob = try #require(try alice.peer(Keys.bob.id))
        #expect(realBob.name == "Bob")
        #expect(realBob.claimedName == nil && realBob.warning == nil)
        #expect(try alice.conversation(id)?.participants.map(\.id) == [Keys.bob.id])
        #expect(try alice.history(id).map(\.text) == ["hi bob", "hi alice"])
        #expect(try alice.latestConversation(with: Keys.mallory.id) == nil)

        // Seen again, a known key keeps its name and raises nothing new.
        #expect(try alice.notePeerSeen(Keys.mallory.id, suggestedName: "Bob", address: nil, now: at(5)) == nil)
        #expect(try alice.peers().filter { $0.name.lowercased().hasPrefix("bob") }.count == 2)

        // Verifying that key settles the doubt for that key only.
        try alice.setTrust(Keys.mallory.id, .verified)
        #expect(try alice.peer(Keys.mallory.id)?.warning == nil)
        #expect(try alice.peer(Keys.bob.id)?.trust == .unverified)
    }

    @Test func aKeyClaimingMyOwnNameIsFlagged() throws {
        let alice = try makeStore(Keys.alice)
        try alice.setDisplayName("Alice")
        #expect(try alice.notePeerSeen(Keys.mallory.id, suggestedName: "ALICE", address: nil) == Keys.alice.id)
        #expect(try alice.peer(Keys.mallory.id)?.claimedName == "ALICE")
        #expect(try alice.peer(Keys.mallory.id)?.name == "ALICE (\(Keys.mallory.id.shortHex))")
    }

    @Test func trustBelongsToTheKeyAndUnknownKeysCanBeBlockedAhead() throws {
        let alice = try makeStore(Keys.alice)
        try alice.savePeer(Keys.bob.id, name: "Bob")
        try alice.setTrust(Keys.bob.id, .verified)
        try alice.savePeer(Keys.bob.id, name: "Robert")
        #expect(try alice.peer(Keys.bob.id)?.trust == .verified)
        try alice.setTrust(Keys.mallory.id, .blocked)
        #expect(try alice.peer(Keys.mallory.id)?.name == Keys.mallory.id.shortHex)
        #expect(try alice.blockedPeers() == [Keys.mallory.id])
        #expect(throws: StoreError.self) { try alice.setTrust(Keys.alice.id, .blocked) }
    }

    @Test func aBlockedAuthorsMessagesAreStoredButNotShown() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let carol = try makeStore(Keys.carol)
        try alice.savePeer(Keys.bob.id, name: "Bob")
        try alice.savePeer(Keys.carol.id, name: "Carol")
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id, Keys.carol.id], firstMessage: "plans?", now: at(10))
        try syncBoth(id, alice, bob)
        try syncBoth(id, alice, carol)
        _ = try carol.sendMessage("hiking saturday", to: id, now: at(20))
        _ = try bob.sendMessage("pineapple pizza", to: id, now: at(30))
        try sync(id, from: carol, to: alice)
        try sync(id, from: bob, to: alice)
        #expect(try alice.unreadCount(id) == 2)

        try alice.setTrust(Keys.bob.id, .blocked)
        #expect(try alice.history(id).compactMap(\.text) == ["plans?", "hiking saturday"])
        #expect(try alice.unreadCount(id) == 1)
        #expect(try alice.totalUnread() == 1)
        #expect(try alice.conversation(id)?.lastMessage?.text == "hiking saturday")
        #expect(try alice.search("pineapple").isEmpty)
        #expect(try alice.message(id, author: Keys.bob.id, seq: 1) == nil)
        #expect(try alice.conversation(id)?.participants.first { $0.id == Keys.bob.id }?.trust == .blocked)

        // Still stored: the clock covers Bob's entry, so the logs stay whole and Alice passes
        // it on to Carol like any other.
        #expect(try alice.clock(of: id)[Keys.bob.id] == 1)
        let activity = try #require(try alice.conversation(id)?.lastActivityAt)
        _ = try bob.sendMessage("still here", to: id, now: at(40))
        #expect(try sync(id, from: bob, to: alice) == 1)
        #expect(try alice.clock(of: id)[Keys.bob.id] == 2)
        #expect(try alice.conversation(id)?.lastActivityAt == activity)
        #expect(try alice.history(id).compactMap(\.text) == ["plans?", "hiking saturday"])
        #expect(try sync(id, from: alice, to: carol) == 2)
        #expect(try carol.history(id).compactMap(\.text).contains("still here"))

        try alice.setTrust(Keys.bob.id, .unverified)
        #expect(
            try alice.history(id).compactMap(\.text) == ["plans?", "hiking saturday", "pineapple pizza", "still here"])
        #expect(try alice.unreadCount(id) == 3)
        #expect(try alice.search("pineapple").count == 1)
    }
}
