import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// A person's node takes each other author's new entries at a bounded rate (M5, issue 12):
/// over it they wait aside and are taken as the author's budget refills; nothing is
/// refused, lost or treated as a violation, and nobody else is slowed.
@Suite struct AuthorRateLimitTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
    }

    /// 100 entries a second, bursts of 300; bytes plenty.
    static let slow = AuthorRateLimit(
        entriesPerSecond: 100, bytesPerSecond: 1e9, burstEntries: 300, burstBytes: 1e9)

    /// A conversation of all three, held by all three, and Alice no longer in session with
    /// Carol: what Carol writes next does not depend on what Alice writes next.
    private func group() throws -> ConversationID {
        harness.connect(alice, bob)
        harness.connect(bob, carol)
        harness.connect(alice, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        try harness.run()
        #expect(try carol.store.texts(id) == ["hi"] && bob.store.texts(id) == ["hi"])
        harness.disconnect(alice, carol)
        return id
    }

    @Test func aFloodWaitsBeyondItsBudgetAndIsTakenWholeAsItRefillsOthersAreNotSlowed() throws {
        let id = try group()
        bob.engine.configuration.authorRateLimit = Self.slow
        // Bob stores what waited a batch of 50 at a time.
        bob.engine.configuration.batchSize = 50
        let start = try bob.store.clock(of: id)[alice.id]
        let flood = try alice.store.sendMessages((0..<1000).map { "flood \($0)" }, to: id)
        try harness.wrote(flood, at: alice)
        let replies = try carol.store.sendMessages((0..<5).map { "carol \($0)" }, to: id)
        try harness.wrote(replies, at: carol)
        try harness.runWithoutTimers()

        // The burst and at most one Entries message beyond it (a message is taken whole);
        // the rest waits, unacknowledged. Carol's entries, which do not depend on it, are in.
        let taken = try bob.store.clock(of: id)[alice.id] - start
        #expect(taken >= 300 && taken <= 300 + 256, "took \(taken) of alice's 1000 at once")
        #expect(bob.engine.held.count == 1000 - Int(taken))
        #expect(try bob.store.clock(of: id)[carol.id] == carol.store.clock(of: id)[carol.id])
        #expect(try bob.store.texts(id).filter { $0.hasPrefix("carol") }.count == 5)
        #expect(harness.misbehavior.isEmpty)

        // Then about 100 a second (plus one batch of 50), until all are in.
        var seconds = 0
        while try bob.store.clock(of: id)[alice.id] < start + 1000 {
            try harness.tick(bob, by: .seconds(1))
            seconds += 1
            let now = try bob.store.clock(of: id)[alice.id] - start
            #expect(now <= taken + UInt64(100 * seconds + 50), "\(now) after \(seconds) s")
            try #require(seconds < 60)
        }
        #expect(seconds >= (1000 - Int(taken) - 50) / 100)
        #expect(bob.engine.held.count == 0)
        #expect(try bob.store.texts(id).filter { $0.hasPrefix("flood") } == (0..<1000).map { "flood \($0)" })
        #expect(harness.misbehavior.isEmpty)
        // Alice sent each entry once: what waited was neither refused nor sent again.
        let carried = harness.log.filter { $0.from == alice.id && $0.to == bob.id }.flatMap { item in
            guard case .entries(let entries) = item.message else { return [UInt64]() }
            return entries.compactMap { try? EntryCodec.decodeUnverified($0) }.filter { $0.author == alice.id }.map(
                \.seq)
        }
        #expect(carried.count == Set(carried).count && carried.count >= 1002)
        #expect(try alice.store.outbox().isEmpty)
        // And the whole group converges.
        try harness.run()
        #expect(try carol.store.clock(of: id) == alice.store.clock(of: id))
        #expect(try bob.store.clock(of: id) == alice.store.clock(of: id))
    }

    @Test func beyondWhatMayWaitEntriesAreDroppedFromMemoryAndAskedForAgain() throws {
        let id = try group()
        bob.engine.configuration.authorRateLimit = AuthorRateLimit(
            entriesPerSecond: 100, bytesPerSecond: 1e9, burstEntries: 50, burstBytes: 1e9)
        bob.engine.held.maxEntries = 40
        alice.engine.configuration.batchSize = 25
        let flood = try alice.store.sendEach((0..<600).map { "flood \($0)" }, to: id)
        try harness.wrote(flood, at: alice)
        try harness.runWithoutTimers()
        #expect(bob.engine.held.count == 40)
        #expect(!bob.engine.held.dropped.isEmpty)
        #expect(harness.misbehavior.isEmpty)

        // The timers take what waited, then ask Alice for the rest, a little at a time.
        try harness.run()
        #expect(try bob.store.texts(id).filter { $0.hasPrefix("flood") } == (0..<600).map { "flood \($0)" })
        #expect(bob.engine.held.count == 0 && bob.engine.held.dropped.isEmpty)
        #expect(harness.misbehavior.isEmpty)
        let wants = harness.log.filter { item in
            if case .want = item.message { return item.from == bob.id && item.to == alice.id }
            return false
        }
        #expect(!wants.isEmpty)
    }

    /// Dropped and never asked for (the one peer that sent them left): a later session
    /// offers them again.
    @Test func entriesDroppedFromMemoryComeAgainInALaterSession() throws {
        let id = try group()
        harness.disconnect(bob, carol)
        bob.engine.configuration.authorRateLimit = AuthorRateLimit(
            entriesPerSecond: 100, bytesPerSecond: 1e9, burstEntries: 50, burstBytes: 1e9)
        bob.engine.held.maxEntries = 40
        alice.engine.configuration.batchSize = 25
        let flood = try alice.store.sendEach((0..<600).map { "flood \($0)" }, to: id)
        try harness.wrote(flood, at: alice)
        try harness.runWithoutTimers()
        harness.disconnect(alice, bob)
        try harness.run()
        #expect(try bob.store.clock(of: id)[alice.id] < 601)
        #expect(bob.engine.held.dropped.isEmpty, "nobody to ask: left to a later session")
        harness.connect(alice, bob)
        try harness.run()
        #expect(try bob.store.texts(id).filter { $0.hasPrefix("flood") } == (0..<600).map { "flood \($0)" })
        #expect(harness.misbehavior.isEmpty)
    }

    /// Without the limit, the same flood is all taken at once (the tests above would fail).
    @Test func withoutALimitAFloodIsTakenAtOnce() throws {
        let id = try group()
        let flood = try alice.store.sendMessages((0..<1000).map { "flood \($0)" }, to: id)
        try harness.wrote(flood, at: alice)
        try harness.runWithoutTimers()
        #expect(try bob.store.clock(of: id)[alice.id] == 1002)
    }

    @Test func historyIsNotLimitedWrittenLongAgoOrBeforeTheNodeStarted() throws {
        bob.engine.configuration.authorRateLimit = AuthorRateLimit(
            entriesPerSecond: 1, bytesPerSecond: 1e9, burstEntries: 10, burstBytes: 1e9)
        // Written an hour ago by its author's clock: history.
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "hi")
        _ = try alice.store.sendMessages(
            (0..<500).map { "old \($0)" }, to: id, now: Date().addingTimeInterval(-3600))
        harness.connect(alice, bob)
        try harness.runWithoutTimers()
        #expect(try bob.store.clock(of: id)[alice.id] == 502)
        #expect(bob.engine.held.count == 0)

        // Written now: new, and limited.
        let flood = try alice.store.sendMessages((0..<500).map { "new \($0)" }, to: id)
        try harness.wrote(flood, at: alice)
        try harness.runWithoutTimers()
        #expect(try bob.store.clock(of: id)[alice.id] < 1002)
        #expect(bob.engine.held.count > 0)

        // Written before this node started (it was away): history, taken at once while
        // Alice's new entries still wait.
        let (before, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "before")
        let written = try alice.store.sendMessages((0..<500).map { "before \($0)" }, to: before)
        bob.engine.configuration.startedAt = Date().addingTimeInterval(1)
        try harness.wrote(written, at: alice)
        try harness.runWithoutTimers()
        #expect(try bob.store.clock(of: before)[alice.id] == 502)
        #expect(bob.engine.held.count > 0)

        try harness.run()
        #expect(try bob.store.clock(of: id)[alice.id] == 1002)
        #expect(harness.misbehavior.isEmpty)
    }

    @Test func bytesCountAsWellAsEntries() throws {
        bob.engine.configuration.authorRateLimit = AuthorRateLimit(
            entriesPerSecond: 1000, bytesPerSecond: 8192, burstEntries: 10_000, burstBytes: 16_384)
        bob.engine.configuration.batchSize = 1
        harness.connect(alice, bob)
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "hi")
        try harness.run()
        alice.engine.configuration.batchSize = 1
        let big = String(repeating: "x", count: 4000)
        let flood = try alice.store.sendEach((0..<20).map { "\($0) \(big)" }, to: id)
        try harness.wrote(flood, at: alice)
        try harness.runWithoutTimers()
        // 16 KiB of burst: about four messages of 4 KB, and one more taken whole.
        let taken = try bob.store.clock(of: id)[alice.id] - 2
        #expect(taken >= 3 && taken <= 6, "took \(taken)")
        try harness.run()
        #expect(try bob.store.clock(of: id)[alice.id] == 22)
        #expect(harness.misbehavior.isEmpty)
    }

    /// Entries of this node's own key that come back (a restored key) are never held.
    @Test func ownEntriesAreNeverLimited() throws {
        harness.connect(alice, bob)
        let (id, _) = try bob.store.createConversation(with: [alice.id], firstMessage: "mine")
        _ = try bob.store.sendMessages((0..<300).map { "mine \($0)" }, to: id)
        try harness.run()
        #expect(try alice.store.clock(of: id)[bob.id] == 302)
        harness.disconnect(alice, bob)
        let restored = try SyncHarness.Node(name: "restored", seed: 2)
        restored.engine.configuration.authorRateLimit = AuthorRateLimit(
            entriesPerSecond: 1, bytesPerSecond: 1, burstEntries: 1, burstBytes: 1)
        restored.engine.configuration.startedAt = .distantPast
        harness.add(restored)
        harness.connect(alice, restored)
        try harness.runWithoutTimers()
        #expect(try restored.store.clock(of: id)[bob.id] == 302)
        #expect(!restored.engine.held.holds(bob.id))
    }
}

@Suite struct AuthorBudgetsTests {
    @Test func aBucketGoesIntoDebtAndRefillsAtItsRate() {
        var budgets = AuthorBudgets(
            limit: AuthorRateLimit(entriesPerSecond: 10, bytesPerSecond: 1000, burstEntries: 5, burstBytes: 10_000))
        let author = NodeID(bytes: [UInt8](repeating: 7, count: 32))!
        let other = NodeID(bytes: [UInt8](repeating: 8, count: 32))!
        let start = ContinuousClock.now
        for _ in 0..<6 { budgets.charge(author, bytes: 10, now: start) }
        #expect(budgets.inDebt(author, now: start))
        #expect(!budgets.inDebt(other, now: start))
        let anyAtStart = budgets.anyInDebt(now: start)
        #expect(anyAtStart)
        #expect(budgets.inDebt(author, now: start + .milliseconds(50)))
        #expect(!budgets.inDebt(author, now: start + .milliseconds(100)))
        let anyLater = budgets.anyInDebt(now: start + .milliseconds(100))
        #expect(!anyLater)
        // Bytes too: 3,000 bytes at once is 2 s of debt at 1,000 a second past the burst.
        budgets.charge(other, bytes: 12_000, now: start)
        #expect(budgets.inDebt(other, now: start + .seconds(1)))
        #expect(!budgets.inDebt(other, now: start + .seconds(2)))
    }
}
