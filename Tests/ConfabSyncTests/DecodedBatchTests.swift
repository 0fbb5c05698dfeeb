import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

/// A node decodes an `Entries` message where it arrives and hands the decoded entries to
/// the engine with it (`DecodedBatch`): what is stored and answered must not change.
@Suite struct DecodedBatchTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node
    let id: ConversationID
    /// Alice's entries of the conversation, as she would send them.
    let raw: [[UInt8]]

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
        (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "one")
        _ = try alice.store.sendMessages(["two", "three", "four"], to: id)
        raw = try alice.store.entries(in: id, author: alice.id, after: 0)
        for node in [bob, carol] {
            node.engine.peerConnected(alice.id)
            _ = try node.engine.handle(
                .hello(.init(displayName: "alice", role: .person, listenPort: 1)), from: alice.id)
        }
    }

    @Test func entriesDecodedOnArrivalAreStoredAndAnsweredAsIfDecodedHere() throws {
        let withDecoded = try bob.engine.handle(.entries(raw), from: alice.id, decoded: DecodedBatch(raw))
        let without = try carol.engine.handle(.entries(raw), from: alice.id)
        #expect(try bob.store.texts(id) == ["one", "two", "three", "four"])
        #expect(try bob.store.texts(id) == carol.store.texts(id))
        // (Each also appends a delivered receipt of its own.)
        let alices = { (output: SyncOutput) in output.appended.filter { $0.author == alice.id }.map(\.hash) }
        #expect(alices(withDecoded).count == 5)
        #expect(alices(withDecoded) == alices(without))
        #expect(withDecoded.misbehavior == nil && without.misbehavior == nil)
        #expect(withDecoded.replies.count == without.replies.count)
    }

    @Test func aDecodedBatchOfOtherBytesIsNotUsed() throws {
        // Decoded from something else (here: only the first entry, damaged): the engine's
        // own bytes are decoded again, and the good entries are stored.
        var damaged = raw[0]
        damaged[damaged.count / 2] ^= 0xFF
        let output = try bob.engine.handle(.entries(raw), from: alice.id, decoded: DecodedBatch([damaged]))
        #expect(output.misbehavior == nil)
        #expect(try bob.store.texts(id) == ["one", "two", "three", "four"])
    }

    @Test func anUndecodableEntryIsRefusedTheSameWhereverItWasDecoded() throws {
        let garbage = raw + [[0x0A, 0xFF, 0xFF]]
        let withDecoded = try bob.engine.handle(.entries(garbage), from: alice.id, decoded: DecodedBatch(garbage))
        let without = try carol.engine.handle(.entries(garbage), from: alice.id)
        #expect(withDecoded.misbehavior != nil)
        #expect(withDecoded.misbehavior == without.misbehavior)
        #expect(withDecoded.rejectedEntry == without.rejectedEntry)
        #expect(try bob.store.texts(id) == carol.store.texts(id))
    }
}
