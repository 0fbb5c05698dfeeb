import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// Protocol.md §13: entries of mine that another process wrote to a running node's store
/// (the engine was not told) go out by the eager path once the node sees them, as the
/// node's own writes do: only mine, and by invitation to a peer that never heard of their
/// conversation.
@Suite struct ExternalWriteSyncTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
    }

    /// Entries of `author` carried in Entries messages from `from` to `to`, after the
    /// first `skipping` messages of the log.
    private func carried(of author: NodeID, from: NodeID, to: NodeID, skipping: Int) -> Int {
        harness.log.dropFirst(skipping).filter { $0.from == from && $0.to == to }.reduce(0) { count, item in
            guard case .entries(let entries) = item.message else { return count }
            return count + entries.filter { (try? EntryCodec.decodeUnverified($0))?.author == author }.count
        }
    }

    /// Carol lacks Bob's latest message, which Alice holds and has not announced yet. A
    /// message of Alice's written beside her node goes to Carol alone: Bob's reaches Carol
    /// from Bob, or by Alice's announcement, not pushed on by Alice because she wrote.
    @Test func onlyMyEntriesArePushedNotOthersThePeerLacks() throws {
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "setup")
        try harness.run()
        #expect(try carol.store.texts(id) == ["setup"])
        harness.disconnect(bob, carol)
        try harness.wrote([try bob.store.sendMessage("from bob", to: id)], at: bob)
        try harness.runWithoutTimers()
        #expect(try alice.store.texts(id).contains("from bob") && !carol.store.texts(id).contains("from bob"))

        let mark = try writeBesideTheNodeAndExpectItPushedToBoth(id)
        #expect(carried(of: bob.id, from: alice.id, to: carol.id, skipping: mark) == 0)
        // The lazy path heals the rest.
        try harness.run()
        #expect(try carol.store.texts(id).sorted() == ["beside the node", "from bob", "setup"])
    }

    /// A conversation another process started: Bob, who has heard nothing of it in this
    /// session, is invited with its clock and asks for all of it; Carol, not a member, is
    /// told nothing.
    @Test func aConversationStartedBesideTheNodeReachesItsMembersByInvitation() throws {
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        try harness.run()
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "started beside the node")
        let mark = harness.log.count
        try harness.wroteElsewhere([id], at: alice)
        try harness.run()
        #expect(try bob.store.texts(id) == ["started beside the node"])
        let first = try #require(harness.log.dropFirst(mark).first { $0.from == alice.id })
        #expect(first.to == bob.id)
        switch first.message {
        case .clocks, .request: break
        default: Issue.record("alice's first message was \(first.message), not a clock")
        }
        #expect(!harness.log.dropFirst(mark).contains { $0.to == carol.id || $0.from == carol.id })
    }

    /// The push of entries written beside the node acts on one peer's word only: its own
    /// clock, saying what it holds. Bob claims far more of Alice's log than Alice ever
    /// wrote: a claim beyond her own head is not believed, so he is pushed her new entry as
    /// Carol is, and nothing is skipped on his word.
    @Test func aPeerClaimingMoreOfMyLogThanIWroteIsPushedAsTheOthers() throws {
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "setup")
        try harness.run()
        _ = try alice.engine.handle(
            .clocks([.init(conversation: id, clock: VectorClock([alice.id: 1000]))]), from: bob.id)
        _ = try writeBesideTheNodeAndExpectItPushedToBoth(id)
        #expect(try carol.store.texts(id).contains("beside the node"))
        #expect(try bob.store.texts(id).contains("beside the node"))
    }

    /// Alice writes a message through her store, as another process would, and her node
    /// notices: her entry goes once to each of Bob and Carol. Returns where the log stood.
    private func writeBesideTheNodeAndExpectItPushedToBoth(_ id: ConversationID) throws -> Int {
        _ = try alice.store.sendMessage("beside the node", to: id)
        let mark = harness.log.count
        try harness.wroteElsewhere([id], at: alice)
        try harness.runWithoutTimers()
        #expect(carried(of: alice.id, from: alice.id, to: carol.id, skipping: mark) == 1)
        #expect(carried(of: alice.id, from: alice.id, to: bob.id, skipping: mark) == 1)
        return mark
    }
}
