import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

/// The write-ahead log goes into the database file on the checkpointer's connection while
/// the store is idle, not inside someone's commit (`Checkpointer`).
@Suite("Checkpoints off the write path")
struct CheckpointTests {
    @Test func commitsNoLongerCheckpointAtSQLitesThousandPages() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let store = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "first")
        // One commit per message, as a person sends them: each adds pages to the log.
        for i in 0..<800 { _ = try store.sendMessage("message \(i) " + String(repeating: "x", count: 200), to: id) }
        let (log, copied) = try store.checkpoint()
        // SQLite's default would have copied the log into the file, and restarted it, at
        // 1,000 pages; the writer now leaves that to the checkpointer.
        #expect(log > 1000)
        #expect(log < Checkpointer.writerThreshold)
        #expect(copied == log)
        #expect(try store.history(id).last?.text?.hasPrefix("message 799 ") == true)
    }

    @Test func aCheckpointIsNoChangeToAnotherConnection() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
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
