import ConfabModel
import Foundation
import GRDB
import Testing

@testable import ConfabStore

/// Every address a peer was reached at is kept (a few), newest first, for redialling.
@Suite struct PeerAddressTests {
    @Test func everyAddressIsKeptNewestFirstAndTheOldestGiveWay() throws {
        let alice = try makeStore(Keys.alice)
        try alice.savePeer(Keys.bob.id, name: "Bob")
        try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: "10.0.0.2:7461", now: at(1))
        try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: "[fe80::2%eth0]:7461", now: at(2))
        try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: nil, now: at(3))
        #expect(try alice.addresses(of: Keys.bob.id) == ["[fe80::2%eth0]:7461", "10.0.0.2:7461"])
        // Seen again at the first: it moves to the front, and is not kept twice.
        try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: "10.0.0.2:7461", now: at(4))
        #expect(try alice.addresses(of: Keys.bob.id) == ["10.0.0.2:7461", "[fe80::2%eth0]:7461"])
        for i in 0..<6 {
            try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: "192.168.1.\(i):7461", now: at(10 + i))
        }
        #expect(
            try alice.addresses(of: Keys.bob.id) == [
                "192.168.1.5:7461", "192.168.1.4:7461", "192.168.1.3:7461", "192.168.1.2:7461",
            ])
        #expect(try alice.peer(Keys.bob.id)?.address == "192.168.1.5:7461")
    }

    @Test func aForgottenPeerTakesItsAddressesWithIt() throws {
        let alice = try makeStore(Keys.alice)
        try alice.notePeerSeen(Keys.mallory.id, suggestedName: "Mallory", address: "10.0.0.9:7461", now: at(0))
        #expect(try alice.addresses(of: Keys.mallory.id) == ["10.0.0.9:7461"])
        try alice.pruneStrangers(now: at(0).addingTimeInterval(ConfabStore.strangerLifetime + 1))
        #expect(try alice.addresses(of: Keys.mallory.id).isEmpty)
    }

    @Test func anUpgradedStoreKeepsTheAddressItHad() throws {
        let queue = try DatabaseQueue()
        try ConfabStore.migrator.migrate(queue, upTo: "v4-no-peer-clock")
        try queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO peer(id, name, addedAt, lastSeenAt, address) VALUES (?, 'Bob', 1, 5, '10.0.0.2:7461')",
                arguments: [Keys.bob.id.bytes])
        }
        let store = try ConfabStore(writer: queue, identity: Keys.alice)
        #expect(try store.addresses(of: Keys.bob.id) == ["10.0.0.2:7461"])
    }
}
