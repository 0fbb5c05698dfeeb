import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB
import Testing

@testable import ConfabStore

@Suite("Store files, ownership and migrations")
struct StoreFileTests {
    @Test func reopeningWithTheSameIdentityKeepsEverything() throws {
        let directory = try TemporaryDirectory()
        let id: ConversationID
        do {
            let store = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
            (id, _) = try store.createConversation(with: [Keys.bob.id], title: "Persisted", firstMessage: "still here")
            try store.setDisplayName("Alice")
        }
        let reopened = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        #expect(try reopened.history(id).map(\.text) == ["still here"])
        #expect(try reopened.conversation(id)?.title == "Persisted")
        #expect(try reopened.displayName() == "Alice")
        #expect(try reopened.integrityCheck() == ["ok"])
        // A second connection while the first is open, as a CLI command beside a node.
        let second = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        _ = try second.sendMessage("from the side", to: id)
        #expect(try reopened.history(id).map(\.text) == ["still here", "from the side"])
    }

    @Test func anotherIdentityIsRefused() throws {
        let directory = try TemporaryDirectory()
        _ = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let error = #expect(throws: StoreError.self) {
            try ConfabStore(path: directory.databasePath, identity: Keys.bob)
        }
        #expect(error == StoreError.wrongOwner(storeOwner: Keys.alice.id.hex, identity: Keys.bob.id.hex))
        // And the refusal did not take the store over.
        #expect(throws: Never.self) { try ConfabStore(path: directory.databasePath, identity: Keys.alice) }
    }

    @Test func wrongOwnerMessageNamesBothKeysAndTheFix() {
        let error = StoreError.wrongOwner(storeOwner: Keys.alice.id.hex, identity: Keys.bob.id.hex)
        #expect(
            error.description
                == "this data directory belongs to identity \(Keys.alice.id.hex.prefix(16))…, but the key file holds "
                + "\(Keys.bob.id.hex.prefix(16))…; use the data directory that matches the key (--data DIR)")
    }

    @Test func otherErrorMessagesAreActionable() {
        #expect(
            StoreError.unknownConversation("abcd").description
                == "no conversation abcd on this machine (run \"confab list\")")
        #expect(StoreError.unknownPeer("beef").description == "no peer beef (run \"confab peers\")")
        #expect(StoreError.invalidInput("the message is empty").description == "the message is empty")
    }

    @Test func inMemoryStoreIsMigratedAndSound() throws {
        let store = try makeStore(Keys.alice)
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "x")
        try store.deleteConversation(id)
        #expect(try store.integrityCheck() == ["ok"])
        let (completed, applied) = try store.writer.read { db in
            (try ConfabStore.migrator.hasCompletedMigrations(db), try ConfabStore.migrator.appliedMigrations(db))
        }
        #expect(completed)
        #expect(
            applied == [
                "v1-meta-and-peers", "v1-conversations-and-logs", "v2-peer-trust", "v2-relay-accounting",
                "v3-peer-name-skeleton", "v3-evidence", "v4-no-peer-clock", "v5-peer-addresses", "v6-message-actions",
                "v7-reactions-replies", "v8-membership", "v9-files", "v10-search-index-per-commit",
                "v11-protocol-1-members", "v12-rooms", "v13-large-groups", "v14-device-lists",
                "v15-message-person", "v16-device-notices", "v17-personal-settings", "v18-device-renames",
                "v19-device-creates", "v20-setting-names",
            ])
        #expect(try store.metaValue("owner") == Keys.alice.id.hex)
    }

    @Test func aVersionOneStoreUpgradesKeepingItsPeers() throws {
        let queue = try DatabaseQueue()
        try ConfabStore.migrator.migrate(queue, upTo: "v1-conversations-and-logs")
        try queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO peer(id, name, trust, addedAt) VALUES (?, 'Bob', 'verified', 1), (?, 'Mallory', 'blocked', 2)",
                arguments: [Keys.bob.id.bytes, Keys.mallory.id.bytes])
        }
        let store = try ConfabStore(writer: queue, identity: Keys.alice)
        #expect(try store.peers().map(\.name) == ["Bob", "Mallory"])
        #expect(try store.peers().map(\.trust) == [.verified, .blocked])
        #expect(try store.peers().allSatisfy { $0.claimedName == nil })
        #expect(try store.blockedPeers() == [Keys.mallory.id])
    }

    @Test func metaValues() throws {
        let store = try makeStore(Keys.alice)
        #expect(try store.displayName() == nil)
        try store.setDisplayName("Al")
        try store.setDisplayName("Alice")
        #expect(try store.displayName() == "Alice")
        try store.setMetaValue("k", "v")
        #expect(try store.metaValue("k") == "v")
        #expect(try store.metaValue("missing") == nil)
    }
}

@Suite("Peers")
struct PeerTests {
    @Test func saveListAndRename() throws {
        let store = try makeStore(Keys.alice)
        try store.savePeer(Keys.carol.id, name: "  carol ", now: at(1))
        try store.savePeer(Keys.bob.id, name: "Bob", now: at(2))
        #expect(try store.peers().map(\.name) == ["Bob", "carol"])
        let bob = try #require(try store.peer(Keys.bob.id))
        #expect(bob.trust == .unverified)
        #expect(bob.addedAt == at(2))
        #expect(bob.lastSeenAt == nil)

        try store.savePeer(Keys.bob.id, name: "Robert", now: at(9))
        let renamed = try #require(try store.peer(Keys.bob.id))
        #expect(renamed.name == "Robert")
        #expect(renamed.addedAt == at(2))
        #expect(try store.peers().count == 2)
        #expect(try store.peer(Keys.mallory.id) == nil)
    }

    @Test(arguments: ["", "   ", String(repeating: "n", count: Limits.maxNameBytes + 1)])
    func badNamesAreRefused(name: String) throws {
        let store = try makeStore(Keys.alice)
        #expect(throws: StoreError.self) { try store.savePeer(Keys.bob.id, name: name) }
        #expect(try store.peers().isEmpty)
    }

    @Test func myOwnKeyIsNotAPeer() throws {
        let store = try makeStore(Keys.alice)
        #expect(throws: StoreError.self) { try store.savePeer(Keys.alice.id, name: "me") }
    }

    @Test func namesShowInConversationsAndHistory() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id, Keys.carol.id], now: at(1))
        try sync(id, from: alice, to: bob)
        _ = try bob.sendMessage("hey", to: id, now: at(2))
        try sync(id, from: bob, to: alice)
        #expect(try alice.conversation(id)?.displayName == "\(Keys.bob.id.shortHex), \(Keys.carol.id.shortHex)")
        #expect(try alice.history(id).first?.authorName == Keys.bob.id.shortHex)
        try alice.savePeer(Keys.bob.id, name: "Bob")
        try alice.savePeer(Keys.carol.id, name: "Carol")
        #expect(try alice.conversation(id)?.displayName == "Bob, Carol")
        #expect(try alice.history(id).first?.authorName == "Bob")
        // Bob sees the creator and the other member, not himself.
        #expect(try bob.conversation(id)?.participants.map(\.id) == [Keys.alice.id, Keys.carol.id])
    }
}
