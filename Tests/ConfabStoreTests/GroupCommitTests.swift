import ConfabCrypto
import ConfabModel
import Dispatch
import Foundation
import GRDB
import Testing

@testable import ConfabStore

/// The store's one write path: writes that wait together share one transaction and one
/// fsync, and each caller returns only once the transaction holding its write committed.
/// Each test holds the committer inside a first write (`Gate`) so that the writes under test
/// are queued together, whatever the scheduler does.
@Suite("Group commit: one write path")
struct GroupCommitTests {
    @Test func aWriteAloneCommitsAtOnceInATransactionOfItsOwn() throws {
        let directory = try TemporaryDirectory()
        let store = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "first")
        let before = store.commitStatistics
        _ = try store.sendMessage("alone", to: id)
        let after = store.commitStatistics
        #expect(after.transactions == before.transactions + 1)
        #expect(after.writes == before.writes + 1)
        #expect(try store.history(id).map(\.text) == ["first", "alone"])
        // A write of mine waited for fsync: the connection is FULL, not what GRDB opens a
        // pool's writer with in WAL mode (NORMAL, which a power loss can undo).
        #expect(after.synced == before.synced + 1)
        #expect(try synchronousSetting(store) == 2)
    }

    @Test func writesWaitingTogetherShareOneCommitAndEachGetsItsOwnResult() throws {
        let directory = try TemporaryDirectory()
        let store = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "first")
        let before = store.commitStatistics

        let results = commitTogether(
            store, (0..<8).map { index in { _ = try store.sendMessage("queued \(index)", to: id) } })
        #expect(results.allSatisfy { $0 == nil })

        let after = store.commitStatistics
        // The gate's own write, then the eight queued behind it: two commits.
        #expect(after.transactions == before.transactions + 2)
        #expect(after.writes == before.writes + 9)
        #expect(after.largestBatch >= 8)
        let entries = try store.history(id)
        #expect(Set(entries.compactMap(\.text)) == Set(["first"] + (0..<8).map { "queued \($0)" }))
        // One author, one chain: the batch numbered them one after another, and another
        // node takes every entry (each linked to the one before, each signed).
        #expect(entries.map(\.seq) == Array(2...10))
        let bob = try makeStore(Keys.bob)
        #expect(try sync(id, from: store, to: bob) == 10)
    }

    @Test func aWriteThatFailsIsUndoneAloneAndTheRestOfItsCommitStands() throws {
        let (store, id, directory) = try storeWithConversation()
        defer { withExtendedLifetime(directory) {} }

        let results = messagesAround(in: id, of: store) {
            try store.write { db in
                try db.execute(sql: "INSERT INTO meta(key, value) VALUES ('half-written', 'x')")
                throw StoreError.invalidInput("refused halfway")
            }
        }

        #expect(results[0] == nil)
        #expect(results[1] == "refused halfway")
        #expect(results[2] == nil)
        #expect(try store.history(id).map(\.text) == ["first", "before", "after"])
        let halfWritten = try store.writer.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'half-written'")
        }
        #expect(halfWritten == nil)
    }

    @Test func aCommitRolledBackUnderneathFailsEveryWriteInItAndStoresNoneOfThem() throws {
        let (store, id, directory) = try storeWithConversation()
        defer { withExtendedLifetime(directory) {} }

        // The middle write does what SQLite does by itself on a full disk or an I/O error:
        // the whole transaction rolled back in the middle of the batch.
        let results = messagesAround(in: id, of: store) {
            try store.write { db in try db.execute(sql: "ROLLBACK") }
        }

        // Nobody is told their write was saved: "before" was rolled back with the rest, and
        // "after" never ran outside the transaction.
        #expect(results.allSatisfy { $0 != nil })
        #expect(try store.history(id).map(\.text) == ["first"])
        // The store goes on: the next write commits, at the next seq.
        _ = try store.sendMessage("next", to: id)
        #expect(try store.history(id).map(\.text) == ["first", "next"])
        #expect(try store.history(id).map(\.seq) == [2, 3])
        #expect(try store.integrityCheck() == ["ok"])
    }

    /// What a write leaves for after its commit (the clocks it grew, for the cache) runs once
    /// that commit is done, and never for a write undone or a commit that failed.
    @Test func whatAWriteLeavesForAfterItsCommitRunsOnlyIfTheWriteAndTheCommitStand() throws {
        let (store, id, directory) = try storeWithConversation()
        defer { withExtendedLifetime(directory) {} }
        let log = ActionLog()
        try store.write { _ in store.commits.afterCommit { log.add("alone") } }
        #expect(log.entries == ["alone"])

        let refused = messagesAround(in: id, of: store) {
            try store.write { _ in
                store.commits.afterCommit { log.add("refused") }
                throw StoreError.invalidInput("refused halfway")
            }
        }
        #expect(refused.map { $0 == nil } == [true, false, true])
        let rolledBack = messagesAround(in: id, of: store) {
            try store.write { db in
                store.commits.afterCommit { log.add("rolled back") }
                try db.execute(sql: "ROLLBACK")
            }
        }
        #expect(rolledBack.allSatisfy { $0 != nil })
        #expect(log.entries == ["alone"])
        // The clock cached for the conversation is the one committed: "before" and "after"
        // of the first round, not those of the round rolled back.
        let held = try store.read { db in try VectorClock.fetchHeld(db, conversation: id) }
        #expect(try store.clock(of: id) == held)
        #expect(held[Keys.alice.id] == 4)
    }

    /// A node's store caches clocks; what another process commits to the same file (a CLI
    /// run while no node answered) counts once the node, seeing the file changed, forgets
    /// them. Reading the counter is only a read: the forgetting is the caller's own call.
    @Test func clocksCommittedByAnotherConnectionCountOnceTheCachesAreForgotten() throws {
        let directory = try TemporaryDirectory()
        let node = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let (id, _) = try node.createConversation(with: [Keys.bob.id], firstMessage: "first")
        let counter = try node.externalChangeCounter()
        #expect(try node.clock(of: id)[Keys.alice.id] == 2)
        let cli = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        _ = try cli.sendMessage("sent by a CLI", to: id)
        #expect(try node.externalChangeCounter() != counter)
        #expect(try node.clock(of: id)[Keys.alice.id] == 2, "the counter's read left the cache alone")
        node.forgetCaches()
        #expect(try node.clock(of: id)[Keys.alice.id] == 3)
    }

    // MARK: What waits for fsync

    @Test func entriesReceivedAreCommittedWithoutFsyncAndSyncedByTheNextDurableCommit() throws {
        let (alice, bob, id, directories) = try fileBackedPair()
        defer { withExtendedLifetime(directories) {} }
        _ = try alice.sendMessages(["one", "two"], to: id)
        let before = bob.commitStatistics
        #expect(try sync(id, from: alice, to: bob, ack: false) == 3)
        #expect(try synchronousSetting(bob) == 1)  // NORMAL: survives a kill, not a power loss
        var after = bob.commitStatistics
        #expect(after.transactions == before.transactions + 1 && after.synced == before.synced)
        #expect(after.pendingSync)

        // The node's periodic sync: one small synced commit, whose fsync takes the log.
        #expect(try bob.syncReceived())
        #expect(try synchronousSetting(bob) == 2)  // FULL
        after = bob.commitStatistics
        #expect(after.synced == before.synced + 1 && !after.pendingSync)
        // Nothing pending: nothing written.
        #expect(try bob.syncReceived() == false)
        #expect(bob.commitStatistics.transactions == after.transactions)
        #expect(try bob.history(id).compactMap(\.text) == ["one", "two"])
    }

    @Test func entriesOfMineGivenBackToARestoredKeyWaitForFsync() throws {
        let original = try makeStore(Keys.alice)
        let (id, _) = try original.createConversation(with: [Keys.bob.id], firstMessage: "one")
        let log = try original.entries(in: id, author: Keys.alice.id, after: 0)
        let directory = try TemporaryDirectory()
        let restored = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let before = restored.commitStatistics
        for result in try restored.append(batch: log) {
            #expect(throws: Never.self) { try result.get() }
        }
        // Lost again to a power loss, they would let this key write its next seq anew: a fork.
        let after = restored.commitStatistics
        #expect(after.synced == before.synced + 1 && !after.pendingSync)
        #expect(try synchronousSetting(restored) == 2)
    }

    @Test func anEntryThatOnlyClaimsToBeMineDoesNotMakeItsCommitWaitForFsync() throws {
        // What a peer says of an entry's author counts only once the signature says so: an
        // entry naming alice as its author with a signature that does not verify is refused
        // before the commit is chosen, and the batch stays unsynced like any other.
        let original = try makeStore(Keys.alice)
        let (id, _) = try original.createConversation(with: [Keys.bob.id], firstMessage: "one")
        var forged = try #require(try original.entries(in: id, author: Keys.alice.id, after: 0).first)
        forged[forged.count - 1] ^= 0x01  // the signature is the entry's last bytes
        let directory = try TemporaryDirectory()
        let restored = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let before = restored.commitStatistics
        let results = try restored.append(batch: [forged])
        #expect(throws: AppendRejection.self) { try results[0].get() }
        let after = restored.commitStatistics
        #expect(after.synced == before.synced)
        #expect(try synchronousSetting(restored) == 1)
    }

    @Test func aWriteOfMineCommittedWithReceivedEntriesMakesTheirCommitWaitForFsync() throws {
        let (alice, bob, id, directories) = try fileBackedPair()
        defer { withExtendedLifetime(directories) {} }
        _ = try alice.sendMessages(["one", "two"], to: id)
        let before = bob.commitStatistics
        let results = commitTogether(
            bob,
            [
                { try sync(id, from: alice, to: bob, ack: false) },
                { _ = try bob.sendMessage("mine", to: id) },
            ])
        #expect(results.allSatisfy { $0 == nil })
        let after = bob.commitStatistics
        // The gate's commit and the shared one: both synced, nothing left pending.
        #expect(after.transactions == before.transactions + 2 && after.synced == before.synced + 2)
        #expect(!after.pendingSync)
        #expect(try synchronousSetting(bob) == 2)
        #expect(try bob.syncReceived() == false)
    }
}

/// A store on disk (alice's) with a conversation holding her message "first", and its
/// directory, removed when the test lets go of it.
private func storeWithConversation() throws -> (ConfabStore, ConversationID, TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    let store = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
    let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "first")
    return (store, id, directory)
}

/// `middle` committed together with a message "before" it and one "after" it; each one's
/// error text, in that order.
private func messagesAround(
    in id: ConversationID, of store: ConfabStore, _ middle: @escaping @Sendable () throws -> Void
) -> [String?] {
    commitTogether(
        store,
        [
            { _ = try store.sendMessage("before", to: id) },
            middle,
            { _ = try store.sendMessage("after", to: id) },
        ])
}

/// Two stores on disk sharing a conversation alice started (its create entry not yet at
/// bob), and their directories, removed when the test lets go of them.
private func fileBackedPair() throws -> (
    alice: ConfabStore, bob: ConfabStore, id: ConversationID, directories: [TemporaryDirectory]
) {
    let directories = [try TemporaryDirectory(), try TemporaryDirectory()]
    let alice = try ConfabStore(path: directories[0].databasePath, identity: Keys.alice)
    let bob = try ConfabStore(path: directories[1].databasePath, identity: Keys.bob)
    let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: nil)
    return (alice, bob, id, directories)
}

/// The writer connection's `PRAGMA synchronous`: 1 NORMAL, 2 FULL.
private func synchronousSetting(_ store: ConfabStore) throws -> Int {
    try store.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
}

/// Starts each write on a thread of its own, in order, each queued behind a held commit
/// before the next starts, then lets that commit end: the writes are then committed together.
/// Gives each one's error text (nil when it succeeded), in order.
private func commitTogether(_ store: ConfabStore, _ writes: [@Sendable () throws -> Void]) -> [String?] {
    let gate = Gate(store)
    let writers = Writers()
    for (index, write) in writes.enumerated() {
        writers.start(write)
        gate.waitForQueued(index + 1)
    }
    gate.open()
    return writers.finish()
}

/// Holds the store's committer inside a write until opened, so that writes started
/// meanwhile queue behind it and are committed together.
private final class Gate: Sendable {
    private let store: ConfabStore
    private let entered = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(_ store: ConfabStore) {
        self.store = store
        // Threads of their own: blocked work items on Dispatch's pool would wait for it to grow.
        Thread { [self] in
            _ = try? store.write { _ in
                self.entered.signal()
                self.release.wait()
            }
            done.signal()
        }.start()
        entered.wait()
    }

    /// Waits (without a time limit a test could trip on) until `count` writes are queued.
    func waitForQueued(_ count: Int) {
        while store.commits.queuedCount < count { usleep(1_000) }
    }

    func open() {
        release.signal()
        done.wait()
    }
}

/// Writes on threads of their own; `finish` waits for them all and gives each one's error
/// text (nil when it succeeded), in the order they were started.
private final class Writers: @unchecked Sendable {
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var results: [Int: String?] = [:]
    private var started = 0

    func start(_ body: @escaping @Sendable () throws -> Void) {
        let index = started
        started += 1
        group.enter()
        Thread { [self] in
            var failure: String?
            do { try body() } catch { failure = "\(error)" }
            lock.lock()
            results[index] = failure
            lock.unlock()
            group.leave()
        }.start()
    }

    func finish() -> [String?] {
        group.wait()
        return (0..<started).map { results[$0] ?? nil }
    }
}

/// What after-commit actions ran, in order.
private final class ActionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var logged: [String] = []

    func add(_ entry: String) { lock.withLock { logged.append(entry) } }
    var entries: [String] { lock.withLock { logged } }
}
