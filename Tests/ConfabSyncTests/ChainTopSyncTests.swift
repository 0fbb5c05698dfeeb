import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// A receiver checks only the signature at the top of each author's chain in a message
/// (Protocol.md §7 step 3), so a sender must end its chains at entries whose signatures it
/// made or checked (§12 step 3).
@Suite struct ChainTopSyncTests {
    /// Alice signs one of her entries with garbage, under a good one: Bob takes them all on
    /// the chain. Sending them on in messages cut right at that entry, Bob leaves it out of
    /// the cut rather than have Carol end the session with him, and Carol still gets it
    /// with the entry above it.
    @Test func anHonestNodeNeverEndsAChainAtAnEntryWhoseSignatureIsBad() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        _ = try alice.store.sendEach(["a", "b", "c", "d", "e"], to: id)
        var log = try alice.store.entries(in: id, author: alice.id, after: 0)
        #expect(log.count == 7)
        log[3][log[3].count - 1] ^= 0x01

        bob.engine.peerConnected(alice.id)
        _ = try bob.engine.handle(.hello(.init(displayName: "alice", role: .person, listenPort: 1)), from: alice.id)
        let taken = try bob.engine.handle(.entries(log), from: alice.id)
        #expect(taken.misbehavior == nil)
        #expect(taken.appended.filter { $0.author == alice.id }.count == 7)
        bob.engine.peerDisconnected(alice.id)

        bob.engine.configuration.batchSize = 4
        harness.connect(bob, carol)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(try carol.store.clock(of: id)[alice.id] == 7)
        #expect(try carol.store.texts(id) == alice.store.texts(id))
        // No message Bob sent ended Alice's chain at the damaged entry.
        for (from, _, message) in harness.log where from == bob.id {
            guard case .entries(let entries) = message,
                let top = entries.last(where: { EntryCodec.peekPosition($0)?.author == alice.id })
            else { continue }
            #expect(EntryCodec.hasValidSignature(try EntryCodec.decodeUnverified(top)))
        }
    }

    /// A message a node sends checks no signature it checked lately, nor any of its own.
    @Test func sendingOnWhatWasCheckedOnArrivalChecksNothingAgain() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        _ = try alice.store.sendMessages((1...50).map { "line \($0)" }, to: id)
        harness.connect(alice, bob)
        try harness.run()
        #expect(alice.store.signatures.count <= 1, "only Bob's receipt")
        let checkedByBob = bob.store.signatures.count
        harness.disconnect(alice, bob)
        harness.connect(bob, carol)
        try harness.run()
        #expect(try carol.store.clock(of: id)[alice.id] == 52)
        // Bob checked Carol's delivered receipt, and nothing he sent her.
        #expect(try carol.store.clock(of: id)[carol.id] == 1)
        #expect(bob.store.signatures.count == checkedByBob + 1)
    }

    /// Every message an engine sent ends each author's run on an entry that carries a
    /// valid signature of its own.
    private func expectSignedTops(from sender: SyncHarness.Node, in harness: SyncHarness) throws {
        for (from, _, message) in harness.log where from == sender.id {
            guard case .entries(let entries) = message else { continue }
            var last: [NodeID: [UInt8]] = [:]
            for raw in entries { last[try EntryCodec.decodeUnverified(raw).author] = raw }
            for raw in last.values { #expect(EntryCodec.hasValidSignature(try EntryCodec.decodeUnverified(raw))) }
        }
    }

    /// Alice's pipe writes runs signed only at their tops (§4.3). Her window to Bob (100
    /// entries in flight) and Bob's to Carol cut those runs anywhere; each message still
    /// ends on a signed entry, nothing is refused, and all three converge.
    @Test func windowsThatCutUnsignedRunsSendUpToTheirSignedEntries() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        let written = try alice.store.sendMessages((0..<500).map { "line \($0)" }, to: id)
        #expect(written.filter { EntryCodec.isUnsigned($0) }.count > 400)
        alice.engine.configuration.window = 100
        bob.engine.configuration.window = 70
        harness.connect(alice, bob)
        try harness.run()
        harness.disconnect(alice, bob)
        harness.connect(bob, carol)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(try carol.store.clock(of: id)[alice.id] == 502)
        #expect(try carol.store.texts(id) == alice.store.texts(id))
        try expectSignedTops(from: alice, in: harness)
        try expectSignedTops(from: bob, in: harness)
    }

    /// Sixteen members each pipe 20 lines at once, holding only the create: each writes one
    /// run signed at its top, and in display order the runs interleave, so the first 256
    /// entries of an answer hold each author's first 16, none signed. Bob answers Carol's
    /// request with all 320: every one reaches her, in messages that each end every author's
    /// entries on a signed one. (Splitting the order at 256 and moving the unsigned tops
    /// on to the next message filled it with them alone, and they never went: a node of a
    /// large group of 50 on the LAN stayed at 680 of 1,000 messages.)
    @Test func interleavedUnsignedRunsOfManyAuthorsAllGoInWholeRuns() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let writers = try (0..<16).map { try SyncHarness.Node(name: "writer\($0)", seed: UInt8(10 + $0)) }
        for writer in writers { harness.add(writer) }
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id] + writers.map(\.id))
        for member in writers + [bob, carol] {
            harness.connect(alice, member)
            try harness.run()
            harness.disconnect(alice, member)
            #expect(try member.store.clock(of: id) == alice.store.clock(of: id))
        }
        for writer in writers {
            let run = try writer.store.sendMessages((1...20).map { "\(writer.name) line \($0)" }, to: id)
            #expect(run.filter { !EntryCodec.isUnsigned($0) }.count == 1)
            harness.connect(writer, bob)
            try harness.run()
            harness.disconnect(writer, bob)
        }
        #expect(try bob.store.texts(id).count == 320)
        harness.connect(bob, carol)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(try carol.store.texts(id) == bob.store.texts(id))
        try expectSignedTops(from: bob, in: harness)
    }

    /// A run cut at an unsigned entry proves nothing: a peer that sends one as the last of
    /// its author's entries is refused as it would be for a bad signature, and the session
    /// with it ends (§7 step 3), whoever wrote the run.
    @Test func aPeerThatEndsARunOnAnUnsignedEntryIsALiar() throws {
        let (_, alice, bob, _) = try SyncHarness.trio()
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "hi")
        _ = try alice.store.sendMessages((0..<10).map { "line \($0)" }, to: id)
        let log = try alice.store.entries(in: id, author: alice.id, after: 0)
        bob.engine.peerConnected(alice.id)
        _ = try bob.engine.handle(.hello(.init(displayName: "alice", role: .person, listenPort: 1)), from: alice.id)
        let cut = try bob.engine.handle(.entries(Array(log[0..<8])), from: alice.id)
        #expect(cut.misbehavior != nil)
        #expect(try bob.store.clock(of: id)[alice.id] < 8)
    }
}
