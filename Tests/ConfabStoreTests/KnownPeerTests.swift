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
}
