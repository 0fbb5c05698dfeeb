import ConfabModel
import Foundation
import SwiftProtobuf
import Testing

@testable import ConfabStore
@testable import ConfabWire

/// In a group every entry reaches a node from several peers: the copies after the first
/// are recognised by their content hash, before any signature check, and cost no write.
@Suite struct DuplicateEntryTests {
    @Test func aHeldEntryIsADuplicateWithoutAWrite() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hello")
        let bob = try ConfabStore(path: directory.databasePath, identity: Keys.bob)
        let watcher = try ConfabStore(path: directory.databasePath, identity: Keys.bob)
        let batch = try missingEntries(id, from: alice, to: bob)
        #expect(try bob.append(batch: batch).allSatisfy { (try? $0.get()) != .duplicate })
        let before = try watcher.externalChangeCounter()
        #expect(try bob.append(batch: batch).allSatisfy { (try? $0.get()) == .duplicate })
        #expect(try watcher.externalChangeCounter() == before, "a batch of duplicates committed nothing")
    }

    /// The hash covers everything the signature covers: a copy whose signature was
    /// damaged is still the held entry, and changes nothing.
    @Test func aCopyWithADamagedSignatureOfAHeldEntryChangesNothing() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hello")
        let batch = try missingEntries(id, from: alice, to: bob)
        _ = try bob.append(batch: batch)
        let before = try snapshot(bob)
        var signed = try Confab_V1_SignedEntry(serializedBytes: batch[1])
        signed.signature = Data(repeating: 0, count: 64)
        let damaged: [UInt8] = try signed.serializedBytes()
        #expect(try bob.append(damaged) == .duplicate)
        #expect(try snapshot(bob) == before)
        // Not held: the same damage on an entry it lacks is refused as ever.
        let fresh = try makeStore(Keys.bob)
        _ = try fresh.append(batch[0])
        #expect(throws: AppendRejection.self) { try fresh.append(damaged) }
    }
}
