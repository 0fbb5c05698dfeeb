import ConfabModel
import Foundation
import GRDB
import Testing

@testable import ConfabStore

/// A second store opened on the same file stands for another process: a `confab send`
/// beside a running node, or the node beside an attached chat.
@Suite("External change counter")
struct ExternalChangeTests {
    @Test func aWriteThroughAnotherStoreMovesTheCounter() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let a = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let b = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let before = try a.externalChangeCounter()
        let (id, _) = try b.createConversation(with: [Keys.bob.id], firstMessage: "from another process")
        let afterCreate = try a.externalChangeCounter()
        #expect(afterCreate != before)
        _ = try b.sendMessage("and again", to: id)
        #expect(try a.externalChangeCounter() != afterCreate)
        // Symmetric: b sees a's writes in the same way.
        let seenByB = try b.externalChangeCounter()
        _ = try a.markRead(id)
        try a.setMetaValue("tui.lastOpen", id.hex)
        #expect(try b.externalChangeCounter() != seenByB)
    }

    @Test func aStoresOwnWritesLeaveItsCounterAlone() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let a = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let before = try a.externalChangeCounter()
        let (id, _) = try a.createConversation(with: [Keys.bob.id], firstMessage: "mine")
        _ = try a.sendMessages(["one", "two"], to: id)
        try a.setFlag(.pinned, true, on: id)
        #expect(try a.externalChangeCounter() == before)
    }

    /// The cheap look a node takes every tick before it reads the counter: the log's file
    /// looks changed after any commit (another store's or its own) and the same while
    /// nothing is written.
    @Test func theWriteAheadLogLooksChangedAfterEveryCommitAndOnlyThen() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let a = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let b = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        _ = a.writeAheadLogChanged()
        #expect(!a.writeAheadLogChanged())
        _ = try a.conversations()
        #expect(!a.writeAheadLogChanged())
        let (id, _) = try b.createConversation(with: [Keys.bob.id], firstMessage: "from another process")
        #expect(a.writeAheadLogChanged())
        #expect(!a.writeAheadLogChanged())
        for text in ["one", "two", "three"] {
            _ = try b.sendMessage(text, to: id)
            #expect(a.writeAheadLogChanged(), "after \(text)")
        }
        #expect(!a.writeAheadLogChanged())
    }

    /// What the node's timed duties compare to skip re-reading the store: it moves with
    /// this store's commits and with each external commit noticed, and not with reads.
    @Test func theGenerationMovesWithCommitsAndNoticedChangesOnly() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let a = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let start = a.generation
        _ = try a.conversations()
        _ = try a.externalChangeCounter()
        #expect(a.generation == start)
        let (id, _) = try a.createConversation(with: [Keys.bob.id], firstMessage: "mine")
        let afterWrite = a.generation
        #expect(afterWrite > start)
        _ = try a.history(id)
        #expect(a.generation == afterWrite)
        a.forgetCaches()
        #expect(a.generation > afterWrite)
    }

    @Test func nothingWrittenNothingChanges() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let a = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let b = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let (id, _) = try b.createConversation(with: [Keys.bob.id], firstMessage: "before the first look")
        let settled = try a.externalChangeCounter()
        // Reads, through either store, are not writes.
        _ = try a.history(id)
        _ = try b.conversations()
        _ = try b.outboxCount()
        #expect(try a.externalChangeCounter() == settled)
        #expect(try a.externalChangeCounter() == settled)
    }

    /// What a running node reads, once the counter moved, to tell which conversations
    /// another process wrote entries to: the outbox's head of each. What the chat and the
    /// local commands write of the person's own state (the last open conversation, flags,
    /// a read mark that made no receipt) leaves it as it was; an entry moves its
    /// conversation's head, and no other.
    @Test func outboxHeadsMoveWithEntriesOfMineOnly() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let node = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let cli = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let (first, _) = try node.createConversation(with: [Keys.bob.id], firstMessage: "first")
        let (second, _) = try node.createConversation(with: [Keys.carol.id], firstMessage: "second")
        let before = try node.outboxHeads()
        #expect(before == [first: 2, second: 2])

        let counter = try node.externalChangeCounter()
        try cli.setMetaValue("tui.lastOpen", first.hex)
        try cli.setMetaValue("tui.lastOpen", second.hex)
        try cli.setFlag(.pinned, true, on: second)
        try cli.setFlag(.archived, true, on: first)
        #expect(try cli.markRead(first) == nil, "nothing unread: no receipt")
        #expect(try node.externalChangeCounter() != counter)
        #expect(try node.outboxHeads() == before)

        _ = try cli.sendMessage("from the CLI", to: second)
        #expect(try node.outboxHeads() == [first: 2, second: 3])
        let (third, _) = try cli.createConversation(with: [Keys.mallory.id], firstMessage: "new")
        #expect(try node.outboxHeads() == [first: 2, second: 3, third: 2])
    }

    /// A store on a `DatabaseQueue` reads the counter on its one connection, with the same
    /// meaning; an in-memory one has no other connection, so its counter never moves.
    @Test func aQueueSeesOthersAndAnInMemoryStoreNeverMoves() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let queued = try ConfabStore(writer: DatabaseQueue(path: directory.databasePath), identity: Keys.alice)
        let pooled = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let before = try queued.externalChangeCounter()
        _ = try queued.createConversation(with: [Keys.bob.id], firstMessage: "through the queue")
        #expect(try queued.externalChangeCounter() == before)
        _ = try pooled.createConversation(with: [Keys.carol.id], firstMessage: "through the pool")
        #expect(try queued.externalChangeCounter() != before)

        let memory = try makeStore(Keys.alice)
        let start = try memory.externalChangeCounter()
        _ = try memory.createConversation(with: [Keys.bob.id], firstMessage: "alone")
        #expect(try memory.externalChangeCounter() == start)
    }
}
