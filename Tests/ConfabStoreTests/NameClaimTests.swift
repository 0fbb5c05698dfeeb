import ConfabCrypto
import ConfabModel
import Foundation
import GRDB
import Testing

@testable import ConfabStore

/// Names from a peer's Hello that would pass for a key, or for a name already taken here.
@Suite("Name claims: key-like names and look-alikes")
struct NameClaimTests {
    let alice: ConfabStore

    init() throws {
        alice = try makeStore(Keys.alice)
        try alice.setDisplayName("Alice")
        try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: nil, now: at(1))
    }

    private var malloryShort: String { Keys.mallory.id.shortHex }

    @Test(arguments: [
        Keys.bob.id.hex, String(Keys.bob.id.hex.prefix(16)), String(Keys.bob.id.hex.prefix(8)),
        String(Keys.bob.id.fingerprint.prefix(64)), "DEADBEEF", "ｄｅａｄｂｅｅｆ",
    ])
    func aNameThatLooksLikeAKeyIsNotTakenAsGiven(claim: String) throws {
        let holder = try alice.notePeerSeen(Keys.mallory.id, suggestedName: claim, address: nil, now: at(2))
        #expect(holder != nil)
        let mallory = try #require(try alice.peer(Keys.mallory.id))
        #expect(mallory.name == "peer (\(malloryShort))")
        #expect(mallory.claimedName == claim)
        #expect(mallory.warning?.contains("looks like a key") == true)
    }

    @Test func theDisambiguatedFormIsNotTakenAsGiven() throws {
        let fake = "Bob (\(Keys.bob.id.shortHex))"
        #expect(try alice.notePeerSeen(Keys.mallory.id, suggestedName: fake, address: nil, now: at(2)) != nil)
        let mallory = try #require(try alice.peer(Keys.mallory.id))
        #expect(mallory.name == "Bob (\(malloryShort))")
        #expect(mallory.claimedName == fake)
        #expect(mallory.warning != nil)
    }

    @Test(arguments: [
        "Воb",  // Cyrillic В and о
        "bob\u{200B}",  // zero-width space
        "B\u{200D}ob",  // zero-width joiner
        "\u{202E}boB",  // right-to-left override
        "ＢＯＢ",  // fullwidth
        "ΒΟΒ",  // Greek capitals
        " bob ",
    ])
    func aLookAlikeOfAKnownNameIsKeptApart(claim: String) throws {
        let holder = try alice.notePeerSeen(Keys.mallory.id, suggestedName: claim, address: nil, now: at(2))
        #expect(holder == Keys.bob.id)
        let mallory = try #require(try alice.peer(Keys.mallory.id))
        #expect(mallory.name.hasSuffix(" (\(malloryShort))"))
        #expect(mallory.warning != nil)
        #expect(try alice.peer(Keys.bob.id)?.name == "Bob")
    }

    @Test func aLookAlikeOfMyOwnNameIsFlagged() throws {
        #expect(try alice.notePeerSeen(Keys.mallory.id, suggestedName: "Аlice", address: nil) == Keys.alice.id)
        #expect(try alice.peer(Keys.mallory.id)?.name == "Аlice (\(malloryShort))")
    }

    @Test func differentlyComposedAccentsAreOneName() throws {
        try alice.notePeerSeen(Keys.carol.id, suggestedName: "\u{00C9}mile", address: nil, now: at(2))
        #expect(try alice.notePeerSeen(Keys.mallory.id, suggestedName: "E\u{0301}mile", address: nil) == Keys.carol.id)
    }

    @Test func aNewNameIsStoredWithoutInvisibleCharacters() throws {
        try alice.notePeerSeen(Keys.carol.id, suggestedName: "Ca\u{200B}rol\u{202E}\u{2066}", address: nil)
        let carol = try #require(try alice.peer(Keys.carol.id))
        #expect(carol.name == "Carol")
        #expect(carol.claimedName == nil)
    }

    @Test(arguments: [
        Keys.mallory.id.hex, Keys.mallory.id.fingerprint, "cafe babe", "12345678", "bob (1a2b3c4d)",
    ])
    func namesThatLookLikeKeysCannotBeGivenByHand(name: String) throws {
        #expect(throws: StoreError.self) { try alice.savePeer(Keys.carol.id, name: name) }
        #expect(try alice.peer(Keys.carol.id) == nil)
    }

    @Test(arguments: ["Воb", "BOB", "bob\u{200B}", "alice"])
    func aNameTakenHereOrLookingLikeItCannotBeGivenByHand(name: String) throws {
        #expect(throws: StoreError.self) { try alice.savePeer(Keys.carol.id, name: name) }
        // Renaming a peer to a name like its own is fine.
        try alice.savePeer(Keys.bob.id, name: "BOB")
        #expect(try alice.peer(Keys.bob.id)?.name == "BOB")
    }

    @Test func namesGivenByHandLoseInvisibleCharacters() throws {
        try alice.savePeer(Keys.carol.id, name: "Ca\u{200B}rol\u{202E}")
        #expect(try alice.peer(Keys.carol.id)?.name == "Carol")
    }
}

@Suite("Name skeletons stored with peers")
struct NameSkeletonStorageTests {
    @Test func namesStoredBeforeSkeletonsStillConflict() throws {
        let queue = try DatabaseQueue()
        try ConfabStore.migrator.migrate(queue, upTo: "v2-relay-accounting")
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO peer(id, name, addedAt) VALUES (?, 'Bob', 1)", arguments: [Keys.bob.id.bytes])
        }
        let alice = try ConfabStore(writer: queue, identity: Keys.alice)
        #expect(try alice.notePeerSeen(Keys.mallory.id, suggestedName: "Воb", address: nil) == Keys.bob.id)
        #expect(throws: StoreError.self) { try alice.savePeer(Keys.carol.id, name: "BOB") }
    }

    @Test func aRenameMovesTheSkeletonWithTheName() throws {
        let alice = try makeStore(Keys.alice)
        try alice.savePeer(Keys.bob.id, name: "Bob")
        try alice.savePeer(Keys.bob.id, name: "Robert")
        #expect(try alice.notePeerSeen(Keys.mallory.id, suggestedName: "bob", address: nil) == nil)
        #expect(try alice.notePeerSeen(Keys.carol.id, suggestedName: "RОBERT", address: nil) == Keys.bob.id)
    }
}
