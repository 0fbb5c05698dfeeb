import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Testing

/// A key restored onto an empty store must never fork its own log: as soon as anything it
/// holds shows its log is further along elsewhere, writing waits until the rest arrives.
@Suite struct RestoredKeyTests {
    @Test func restoredKeyRefusesToWriteUntilItsOwnLogArrives() throws {
        let original = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try original.createConversation(with: [Keys.bob.id], firstMessage: "one", now: at(0))
        _ = try original.sendMessage("two", to: id, now: at(1))
        try sync(id, from: original, to: bob)
        _ = try bob.sendMessage("reply", to: id, now: at(2))

        // The same key on a new machine gets the create entry and Bob's reply, but not yet
        // its own later entries.
        let restored = try makeStore(Keys.alice)
        try restored.append(try original.entries(in: id, author: Keys.alice.id, after: 0, limit: 1)[0])
        for bytes in try bob.entries(in: id, author: Keys.bob.id, after: 0) { try restored.append(bytes) }
        let before = try snapshot(restored)
        let error = try #require(throws: StoreError.self) { try restored.sendMessage("forked?", to: id, now: at(3)) }
        #expect(error.isOwnLogBehind)
        #expect(error.description.contains("was the key restored here?"))
        #expect(try snapshot(restored) == before)

        // Once its own entries arrive, it continues the same log.
        try sync(id, from: original, to: restored)
        let next = try restored.sendMessage("three", to: id, now: at(4))
        #expect(try next.seq == original.clock(of: id)[Keys.alice.id] + 1)
        try sync(id, from: restored, to: bob)
        #expect(try bob.history(id).compactMap(\.text) == ["one", "two", "reply", "three"])
    }
}
