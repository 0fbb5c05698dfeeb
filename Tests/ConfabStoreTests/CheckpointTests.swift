import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

/// The write-ahead log goes into the database file on the checkpointer's connection while
/// the store is idle, not inside someone's commit (`Checkpointer`).
@Suite("Checkpoints off the write path")
struct CheckpointTests {
    /// A fresh folder per test (Swift Testing makes a suite instance for each).
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A file store whose log is copied into the file at the pages given.
    private func store(background: Int, writer: Int) throws -> ConfabStore {
        try ConfabStore(
            path: directory.databasePath, identity: Keys.alice,
            checkpoints: .init(background: background, writer: writer))
    }
    /// One commit per message, as a person sends them: each adds pages to the log.
    private func send(_ count: Int, through store: ConfabStore) throws -> ConversationID {
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "first")
        for i in 0..<count {
            _ = try store.sendMessage("message \(i) " + String(repeating: "x", count: 200), to: id)
        }
        return id
    }

    @Test func commitsNoLongerCheckpointAtSQLitesThousandPages() throws {
        // No background checkpoint: what the commits do by themselves.
        let store = try store(background: .max, writer: 4096)
        let id = try send(800, through: store)
        let (log, copied) = try store.checkpoint()
        // SQLite's default would have copied the log into the file, and restarted it, at
        // 1,000 pages; the writer now leaves that to the checkpointer.
        #expect(log > 1000)
        #expect(copied == log)
        #expect(store.backgroundCheckpoints == 0)
        #expect(try store.history(id).last?.text?.hasPrefix("message 799 ") == true)
    }

    @Test func pastItsThresholdACommitStillCheckpointsByItself() throws {
        let store = try store(background: .max, writer: 300)
        _ = try send(800, through: store)
        // The log restarted after the last checkpoint in a commit, at most 300 pages ago
        // (plus the commit that crossed it).
        #expect(try store.checkpoint().log < 320)
    }

    @Test func aLogThatGrowsUnderABurstIsCopiedInTheBackground() async throws {
        let store = try store(background: 200, writer: 100_000)
        let id = try send(400, through: store)
        // Never idle, never asked: the commits' own reports of the log's size started it.
        for _ in 0..<500 where store.backgroundCheckpoints == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.backgroundCheckpoints >= 1)
        #expect(try store.history(id).last?.text?.hasPrefix("message 399 ") == true)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func aCheckpointIsNoChangeToAnotherConnection() throws {
        let node = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let cli = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let (id, _) = try node.createConversation(with: [Keys.bob.id], firstMessage: "before")
        _ = try node.sendMessages(["one", "two"], to: id)
        let seenByNode = try node.externalChangeCounter()
        let seenByCLI = try cli.externalChangeCounter()
        #expect(try node.checkpoint().copied > 0)
        // A node that took a checkpoint for another process's commit would reload and
        // announce everything after each one.
        #expect(try node.externalChangeCounter() == seenByNode)
        #expect(try cli.externalChangeCounter() == seenByCLI)
        #expect(try cli.history(id).map(\.text) == ["before", "one", "two"])
        _ = try cli.sendMessage("after", to: id)
        #expect(try node.history(id).map(\.text) == ["before", "one", "two", "after"])
        #expect(try node.integrityCheck() == ["ok"])
    }

    @Test func anInMemoryStoreHasNothingToCheckpoint() throws {
        let store = try ConfabStore.inMemory(identity: Keys.alice)
        _ = try store.createConversation(with: [Keys.bob.id], firstMessage: "hi")
        #expect(try store.checkpoint() == (0, 0))
        store.checkpointIfIdle()
    }

    @Test func idleMeansNothingCommittedSinceTheLastLookAndSomethingSinceTheLastCheckpoint() {
        var check = IdleCheck()
        var due: Bool
        due = check.due(transactions: 0)
        #expect(!due, "a store that never committed has no log to copy")
        due = check.due(transactions: 5)
        #expect(!due, "commits since the last look: busy")
        due = check.due(transactions: 9)
        #expect(!due, "still busy")
        due = check.due(transactions: 9)
        #expect(due, "quiet since the last look")
        due = check.due(transactions: 9)
        #expect(!due, "nothing new since that checkpoint")
        due = check.due(transactions: 10)
        #expect(!due)
        due = check.due(transactions: 10)
        #expect(due)
    }
}
