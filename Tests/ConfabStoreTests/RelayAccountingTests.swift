import ConfabModel
import Testing

@testable import ConfabStore

@Suite("Relay accounting")
struct RelayAccountingTests {
    @Test func onlyPeersAddedByHandAreOnTheAllowList() throws {
        let store = try makeStore(Keys.alice)
        try store.savePeer(Keys.bob.id, name: "Bob")
        try store.notePeerSeen(Keys.carol.id, suggestedName: "Carol", address: "127.0.0.1:7461")
        #expect(try store.peersAddedByHand() == [Keys.bob.id])
        // Adding by hand a peer first seen on the network makes it known.
        try store.savePeer(Keys.carol.id, name: "Carol")
        #expect(try store.peersAddedByHand() == [Keys.bob.id, Keys.carol.id])
        // Seeing a known peer again does not demote it.
        try store.notePeerSeen(Keys.bob.id, suggestedName: "Robert", address: nil)
        #expect(try store.peersAddedByHand().contains(Keys.bob.id))
    }

    @Test func storedEntryBytesCountRawEntries() throws {
        let store = try makeStore(Keys.alice)
        #expect(try store.storedEntryBytes() == 0)
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "hello")
        let raw = try store.entries(in: id, author: Keys.alice.id, after: 0)
        #expect(raw.count == 2)
        #expect(try store.storedEntryBytes() == raw.reduce(0) { $0 + $1.count })
    }
}
