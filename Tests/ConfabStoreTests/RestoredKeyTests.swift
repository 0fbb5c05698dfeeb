import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Testing

/// A key restored onto an empty store must never fork its own log. What tells it where its
/// log stands is its own signed entries coming back, never anyone else's clock.
@Suite struct RestoredKeyTests {
    @Test func restoredKeyRefusesToWriteOnceItsOwnEntryShowsItsLogIsFurther() throws {
        let original = try makeStore(Keys.alice)
        let (id, _) = try original.createConversation(with: [Keys.bob.id], firstMessage: "one", now: at(0))
        _ = try original.sendEach(["two", "three"], to: id, now: at(1))
        let log = try original.entries(in: id, author: Keys.alice.id, after: 0)

        // The same key on a new machine gets the create entry, then its own seq 4 before
        // seqs 2 and 3 (as after a sync cut short).
        let restored = try makeStore(Keys.alice)
        try restored.append(log[0])
        try expectAppendRejected(log[3], by: restored, .gap)
        let error = try #require(throws: StoreError.self) { try restored.sendMessage("forked?", to: id, now: at(3)) }
        #expect(error.isOwnLogBehind)
        #expect(error.description.contains("was the key restored here?"))
        #expect(try restored.clock(of: id) == VectorClock([Keys.alice.id: 1]))

        // Once its own entries arrive, it continues the same log.
        for bytes in log.dropFirst() { try restored.append(bytes) }
        let next = try restored.sendMessage("four", to: id, now: at(4))
        #expect(next.seq == 5)
        #expect(next.previous == (try EntryCodec.decodeUnverified(log[3])).hash)
    }

    /// H1: a member's clock claiming Bob wrote 99 entries is not Bob's: it is never stored,
    /// so Bob keeps writing, also after reopening his store.
    @Test func anotherMembersClaimAboutMyLogNeverStopsMe() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let mallory = try makeStore(Keys.mallory)
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id, Keys.mallory.id], firstMessage: "hi all", now: at(0))
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: mallory)
        let body = try sealedMessage("poison", mallory, in: id, author: Keys.mallory.id, seq: 1)
        let poisoned = EntryCodec.encode(
            EntryCodec.sign(
                EntryDraft(
                    conversationID: id, seq: 1, previous: nil, timestamp: 1_900_000_001_000,
                    clock: VectorClock([Keys.alice.id: 2, Keys.bob.id: 99]), body: body),
                with: Keys.mallory))
        for store in [alice, bob] {
            let rejection = try expectAppendRejected(poisoned, by: store, .missingDependency)
            #expect(rejection?.isSessionError == false)
        }
        // Neither Bob nor anyone who would pass the claim on holds it.
        #expect(try bob.sendMessage("still here", to: id, now: at(5)).seq == 1)
        let next = try alice.sendMessage("and me", to: id, now: at(6))
        #expect(next.clock[Keys.bob.id] == 0)
        #expect(try bob.history(id).compactMap(\.text) == ["hi all", "still here"])
    }
}
