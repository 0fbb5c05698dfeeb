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

/// A run of messages written in one transaction is the same log as the messages written
/// one by one: every entry verifies, chains and carries the clock it would have alone.
@Suite struct BatchAuthoringTests {
    @Test func aBatchOfMessagesIsTheLogSingleSendsWouldWrite() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hi", now: at(0))
        try syncBoth(id, alice, bob)
        _ = try bob.sendMessage("bob's answer", to: id, now: at(1))
        try syncBoth(id, alice, bob)
        let batch = try alice.sendMessages(["one", "two", "three"], to: id, now: at(2))
        let single = try alice.sendMessage("four", to: id, now: at(3))
        #expect(batch.map(\.seq) == [3, 4, 5] && single.seq == 6)
        #expect(
            batch[1].previous == batch[0].hash && batch[2].previous == batch[1].hash && single.previous == batch[2].hash
        )
        // Each carries Bob's entry in its clock and my own log up to the one before it.
        for entry in batch + [single] {
            #expect(entry.clock[Keys.bob.id] == 1 && entry.clock[Keys.alice.id] == entry.seq - 1)
        }
        try syncBoth(id, alice, bob)
        #expect(
            try bob.history(id, limit: 10).compactMap(\.text) == ["hi", "bob's answer", "one", "two", "three", "four"])
    }
}

/// The duplicate check reads a seq from bytes nobody has verified yet: one beyond what a
/// database integer holds is refused as malformed, never trapped on.
@Suite struct UnverifiedPositionTests {
    @Test func aSeqBeyondTheLimitInAnUnverifiedEntryIsRefusedNotTrappedOn() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hello")
        let batch = try missingEntries(id, from: alice, to: bob)
        _ = try bob.append(batch: batch)
        var signed = try Confab_V1_SignedEntry(serializedBytes: batch[1])
        var content = try Confab_V1_EntryContent(serializedBytes: signed.content)
        for seq in [UInt64.max, UInt64(Int64.max) + 1, Limits.maxSeq + 1] {
            content.seq = seq
            signed.content = try content.serializedData()
            let forged: [UInt8] = try signed.serializedBytes()
            #expect(throws: AppendRejection.self) { try bob.append(forged) }
        }
    }
}
