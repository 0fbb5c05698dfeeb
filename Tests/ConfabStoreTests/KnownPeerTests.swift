import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

/// The keys a node with every session slot taken still makes room for (Protocol.md §10.6).
@Suite("Known peers")
struct KnownPeerTests {
    @Test func addedByHandOrVerifiedIsKnownAndBlockedNever() throws {
        let alice = try makeStore(Keys.alice)
        _ = try alice.notePeerSeen(Keys.mallory.id, suggestedName: "Mallory", address: "10.0.0.9:7461", now: at(1))
        #expect(try !alice.isKnownPeer(Keys.mallory.id))
        #expect(try !alice.isKnownPeer(Keys.carol.id))
        #expect(try !alice.isKnownPeer(Keys.alice.id))

        try alice.savePeer(Keys.carol.id, name: "Carol")
        #expect(try alice.isKnownPeer(Keys.carol.id))
        try alice.setTrust(Keys.mallory.id, .verified)
        #expect(try alice.isKnownPeer(Keys.mallory.id))
        try alice.setTrust(Keys.carol.id, .blocked)
        #expect(try !alice.isKnownPeer(Keys.carol.id))
    }

    @Test func aConversationThisNodeCreatedOrWroteInMakesItsParticipantsKnown() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        _ = try alice.createConversation(with: [Keys.carol.id], firstMessage: "hi carol", now: at(1))
        #expect(try alice.isKnownPeer(Keys.carol.id))

        // Anyone may start a conversation with Alice: on its own that makes no key known.
        let (id, _) = try bob.createConversation(
            with: [Keys.alice.id, Keys.mallory.id], firstMessage: "hi", now: at(2))
        try sync(id, from: bob, to: alice)
        #expect(try !alice.isKnownPeer(Keys.bob.id))
        #expect(try !alice.isKnownPeer(Keys.mallory.id))
        _ = try alice.sendMessage("hi bob", to: id, now: at(3))
        #expect(try alice.isKnownPeer(Keys.bob.id))
        #expect(try alice.isKnownPeer(Keys.mallory.id))
    }

    /// A large group (Protocol.md §19) makes none of its people known, not even to its
    /// creator, who wrote in it: a group of 1,024 would make them all keys that take a
    /// stranger's place, and all keys to redial.
    @Test func aLargeGroupMakesNoneOfItsPeopleKnown() throws {
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hi all", now: at(1))
        try alice.markLargeForTests(id)
        _ = try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: "10.0.0.2:7461", now: at(2))
        #expect(try !alice.isKnownPeer(Keys.bob.id))
        #expect(try alice.chosenPeers().isEmpty)
        // The same with an ordinary conversation: Bob is known.
        _ = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hi bob", now: at(3))
        #expect(try alice.isKnownPeer(Keys.bob.id))
        #expect(try alice.chosenPeers().map(\.id) == [Keys.bob.id])
    }
}

extension ConfabStore {
    /// Marks a conversation large, as a large group's create does (no store writes one yet).
    func markLargeForTests(_ conversation: ConversationID) throws {
        try write { db in
            try db.execute(sql: "UPDATE conversation SET large = 1 WHERE id = ?", arguments: [conversation.bytes])
        }
    }
}
