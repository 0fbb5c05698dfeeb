import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

/// A known key that introduces itself under a new name: its person renamed themselves. Only
/// the key's own claim moves its own name, through the same checks as a new key's name.
@Suite("Renames: a key's name follows its own Hello")
struct NameFollowTests {
    let alice: ConfabStore

    init() throws {
        alice = try makeStore(Keys.alice)
        try alice.setDisplayName("Alice")
        try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: nil, now: at(1))
        try alice.notePeerSeen(Keys.carol.id, suggestedName: "Carol", address: nil, now: at(1))
    }

    @Test func aKnownKeyUnderANewNameIsRenamedAndFoundByItInSearch() throws {
        let id = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hello there").id
        #expect(try alice.notePeerSeen(Keys.bob.id, suggestedName: "Robert", address: nil, now: at(2)) == nil)
        let bob = try #require(try alice.peer(Keys.bob.id))
        #expect(bob.name == "Robert")
        #expect(bob.claimedName == nil && bob.warning == nil)
        #expect(try alice.conversation(id)?.participants.first?.name == "Robert")
        #expect(try alice.search("Robert").map(\.conversation.id).contains(id))
    }

    @Test func theSameNameWrittenDifferentlyChangesNothing() throws {
        #expect(try alice.notePeerSeen(Keys.bob.id, suggestedName: " BOB\u{200B} ", address: nil, now: at(2)) == nil)
        #expect(try alice.peer(Keys.bob.id)?.name == "Bob")
    }

    @Test func aRenameToAnotherKeysNameIsKeptApartAndFlagged() throws {
        #expect(try alice.notePeerSeen(Keys.bob.id, suggestedName: "Сarol", address: nil, now: at(2)) == Keys.carol.id)
        let bob = try #require(try alice.peer(Keys.bob.id))
        #expect(bob.name == "Сarol (\(Keys.bob.id.shortHex))")
        #expect(bob.warning != nil)
        #expect(try alice.peer(Keys.carol.id)?.name == "Carol")
    }

    @Test func aRenameToMyOwnNameOrAKeyIsNotTakenAsGiven() throws {
        #expect(try alice.notePeerSeen(Keys.bob.id, suggestedName: "alice", address: nil, now: at(2)) == Keys.alice.id)
        #expect(try alice.peer(Keys.bob.id)?.name == "alice (\(Keys.bob.id.shortHex))")
        #expect(
            try alice.notePeerSeen(Keys.bob.id, suggestedName: Keys.carol.id.hex, address: nil, now: at(3))
                == Keys.bob.id)
        #expect(try alice.peer(Keys.bob.id)?.name.hasSuffix("(\(Keys.bob.id.shortHex))") == true)
    }

    @Test func aNameMyPersonGaveStays() throws {
        try alice.savePeer(Keys.bob.id, name: "Bobby from accounts")
        #expect(try alice.notePeerSeen(Keys.bob.id, suggestedName: "Robert", address: nil, now: at(2)) == nil)
        #expect(try alice.peer(Keys.bob.id)?.name == "Bobby from accounts")
    }

    @Test func anEmptyClaimKeepsTheName() throws {
        #expect(try alice.notePeerSeen(Keys.bob.id, suggestedName: "  ", address: nil, now: at(2)) == nil)
        #expect(try alice.peer(Keys.bob.id)?.name == "Bob")
    }

    @Test func aKeyNamedByItsPrefixTakesTheNameItGivesLater() throws {
        try alice.notePeerSeen(Keys.mallory.id, suggestedName: "", address: nil, now: at(2))
        #expect(try alice.peer(Keys.mallory.id)?.name == Keys.mallory.id.shortHex)
        try alice.notePeerSeen(Keys.mallory.id, suggestedName: "Dave", address: nil, now: at(3))
        #expect(try alice.peer(Keys.mallory.id)?.name == "Dave")
    }
}
