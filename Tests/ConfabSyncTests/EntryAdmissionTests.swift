import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

@Suite struct EntryAdmissionTests {
    /// Admits a fixed number of entries, then refuses with "quota".
    final class Budget: EntryAdmission {
        var remaining: Int
        var held = 0

        init(_ remaining: Int) { self.remaining = remaining }

        func refusal(of entry: EntryPeek, size: Int, participants: [NodeID], from peer: NodeID) -> EntryRefusal? {
            guard remaining > 0 else { return .quota }
            remaining -= 1
            held += size
            return nil
        }

        func notStored(_ entry: EntryPeek, size: Int) { held -= size }
    }

    /// Alice and Bob, and a relay that admits `entries` entries.
    private func relayWithBudget(
        _ entries: Int
    ) throws -> (SyncHarness, alice: SyncHarness.Node, bob: SyncHarness.Node, relay: SyncHarness.Node, Budget) {
        let harness = SyncHarness()
        let alice = try SyncHarness.Node(name: "alice", seed: 1)
        let bob = try SyncHarness.Node(name: "bob", seed: 2)
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        for node in [alice, bob, relay] { harness.add(node) }
        let budget = Budget(entries)
        relay.engine.admission = budget
        return (harness, alice, bob, relay, budget)
    }

    @Test func refusedEntriesAreNotStoredStayQueuedAndFollowOnceAdmitted() throws {
        let (harness, alice, bob, relay, budget) = try relayWithBudget(2)

        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "one")
        _ = try alice.store.sendMessages(["two", "three"], to: id)
        harness.connect(alice, relay)
        try harness.run()
        // Create and "one" taken; the rest refused without closing the session.
        #expect(harness.misbehavior.isEmpty)
        #expect(try relay.store.clock(of: id)[alice.id] == 2)
        #expect(try alice.store.history(id).map(\.status) == [.sent, .sending, .sending])
        #expect(try alice.store.outbox().count == 2)
        #expect(budget.held == (try relay.store.storedEntryBytes()))

        // Room again: the next session carries the rest.
        budget.remaining = 10
        harness.disconnect(alice, relay)
        harness.connect(alice, relay)
        try harness.run()
        #expect(try alice.store.history(id).map(\.status) == [.sent, .sent, .sent])
        #expect(budget.held == (try relay.store.storedEntryBytes()))
        // Entries offered again are admitted, found to be duplicates, and not counted twice.
        let again = try alice.store.entries(in: id, author: alice.id, after: 0)
        let output = try relay.engine.handle(.entries(again), from: alice.id)
        #expect(output.misbehavior == nil && output.appended.isEmpty)
        #expect(budget.remaining == 10 - 2 - again.count)
        #expect(budget.held == (try relay.store.storedEntryBytes()))
    }

    /// A quota that runs out inside a run Alice signed only at its top (Protocol.md §4.3):
    /// the relay stores her log up to its last signed entry below the cut, refuses the rest
    /// (queued at Alice), and so can pass on everything it holds: Bob, who never meets Alice,
    /// gets it all, and the session with the relay never ends on a lie.
    @Test func aQuotaThatCutsARunStoresItUpToItsSignedEntry() throws {
        // Create, "one", then the first 80 of a run of 150 (seqs 3…152, signed at 66, 130, 152).
        let (harness, alice, bob, relay, budget) = try relayWithBudget(82)

        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "one")
        _ = try alice.store.sendMessages((1...150).map { "line \($0)" }, to: id)
        harness.connect(alice, relay)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(try relay.store.clock(of: id)[alice.id] == 66)
        #expect(try alice.store.outbox().count == 152 - 66)
        #expect(budget.held == (try relay.store.storedEntryBytes()))

        harness.disconnect(alice, relay)
        harness.connect(relay, bob)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(try bob.store.clock(of: id)[alice.id] == 66)
        #expect(try bob.store.history(id, limit: 100).compactMap(\.text).last == "line 64")
    }
}

/// L1: a bogus create entry in the same batch cannot speak for a conversation that is held.
@Suite struct AdmissionParticipantsTests {
    final class Recorder: EntryAdmission {
        var seen: [[NodeID]] = []
        func refusal(of entry: EntryPeek, size: Int, participants: [NodeID], from peer: NodeID) -> EntryRefusal? {
            seen.append(participants)
            return nil
        }
        func notStored(_ entry: EntryPeek, size: Int) {}
    }

    @Test func aHeldConversationsParticipantsComeFromTheStore() throws {
        let alice = try SyncHarness.Node(name: "alice", seed: 1)
        let bob = try SyncHarness.Node(name: "bob", seed: 2)
        let mallory = try SyncHarness.Node(name: "mallory", seed: 4)
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "one")
        for bytes in try alice.store.entries(in: id, author: alice.id, after: 0) {
            try relay.store.append(bytes, keepsOthers: true)
        }
        let recorder = Recorder()
        relay.engine.admission = recorder
        relay.engine.peerConnected(mallory.id)
        _ = try relay.engine.handle(.hello(.init(displayName: "m", role: .person, listenPort: 1)), from: mallory.id)
        // Mallory's "create" for the held id names itself; then an entry of the conversation.
        let bogus = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 1_800_000_000_000, clock: VectorClock(),
                body: .create(
                    CreateBody(
                        participants: [
                            .init(id: mallory.id, sealedKey: [UInt8](repeating: 1, count: 80)),
                            .init(id: relay.id, sealedKey: [UInt8](repeating: 1, count: 80)),
                        ], sealedTitle: [], nonce: [UInt8](repeating: 2, count: 16),
                        keyCommitment: [UInt8](repeating: 3, count: 32)))),
            with: mallory.keys)
        let next = try alice.store.sendMessage("two", to: id)
        _ = try relay.engine.handle(.entries([EntryCodec.encode(bogus), EntryCodec.encode(next)]), from: mallory.id)
        #expect(recorder.seen.count == 2)
        #expect(recorder.seen.allSatisfy { Set($0) == [alice.id, bob.id] })
    }
}

@Suite struct InvalidEntryCategoryTests {
    @Test func anInvalidEntryClosesTheSessionAndNamesItsCategory() throws {
        let alice = try SyncHarness.Node(name: "alice", seed: 1)
        let bob = try SyncHarness.Node(name: "bob", seed: 2)
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "one")
        var forged = try alice.store.entries(in: id, author: alice.id, after: 0)
        // Flip the last byte of the top entry: its signature no longer verifies, and with
        // it falls the create below, which only that signature vouched for.
        forged[1][forged[1].count - 1] ^= 0x01
        bob.engine.peerConnected(alice.id)
        _ = try bob.engine.handle(.hello(.init(displayName: "alice", role: .person, listenPort: 1)), from: alice.id)
        let output = try bob.engine.handle(.entries(forged), from: alice.id)
        #expect(output.misbehavior != nil)
        #expect(output.rejectedEntry == "bad_signature")
        #expect(try bob.store.clock(of: id).isEmpty)
    }
}
