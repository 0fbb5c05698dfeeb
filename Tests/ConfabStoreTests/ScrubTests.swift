import ConfabModel
import Foundation
import GRDB
import Testing

@testable import ConfabStore

/// What a deletion removes leaves every file of the store's folder, the write-ahead log
/// included, once the deletion has committed and no reader holds the log
/// (`ConfabStore+Scrub`, Protocol.md §8.0).
@Suite("Deletion scrubs the disk")
struct ScrubTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A word with a random tail, which the search index also keeps whole.
    private static func secret() -> String {
        "kestrel" + (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// How often the files of the store's folder hold `text`.
    private func copies(of text: String) throws -> Int {
        let needle = Data(text.utf8)
        return try FileManager.default.contentsOfDirectory(at: directory.url, includingPropertiesForKeys: nil)
            .reduce(0) { total, url in
                var data = try Data(contentsOf: url)
                var count = 0
                while let range = data.range(of: needle) {
                    count += 1
                    data = data[range.upperBound...]
                }
                return total + count
            }
    }

    /// A connection of another process's kind, holding a read transaction open on the log
    /// as it is now until its `COMMIT`.
    private func openReaderInATransaction() throws -> DatabaseQueue {
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: directory.databasePath, configuration: config)
        try reader.inDatabase { db in
            try db.execute(sql: "BEGIN")
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM message")
        }
        return reader
    }

    private var logSize: Int {
        let path = directory.databasePath + "-wal"
        return ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
    }

    @Test func anUnsendMadeHereLeavesNoCopyOnceItReturns() throws {
        let store = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let word = Self.secret()
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "hello")
        let sent = try store.sendMessage("the word is \(word)", to: id)
        #expect(try copies(of: word) >= 2, "the text and the search index hold it before")
        _ = try store.unsendMessage(sent.seq, in: id)
        #expect(!store.scrubDue)
        #expect(logSize == 0)
        #expect(try copies(of: word) == 0)
        #expect(try store.history(id).last?.isDeleted == true)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func aReaderHoldingTheLogKeepsTheScrubDueUntilItLetsGo() throws {
        let store = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let word = Self.secret()
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "hello")
        let sent = try store.sendMessage("the word is \(word)", to: id)

        // Another process's read transaction, open on the log as it was.
        let reader = try openReaderInATransaction()
        _ = try store.unsendMessage(sent.seq, in: id)
        #expect(store.scrubDue, "the reader held the log, so the scrub could not finish")
        #expect(try copies(of: word) > 0)
        #expect(!store.scrubIfDue())

        try reader.inDatabase { db in try db.execute(sql: "COMMIT") }
        #expect(store.scrubIfDue())
        #expect(!store.scrubDue)
        #expect(try copies(of: word) == 0)
    }

    @Test func aDeletionLeftInTheLogIsScrubbedByTheScrubAStartingNodeRuns() throws {
        let word = Self.secret()
        // The deletion commits while a reader holds the log, and the store is never closed
        // (kept open below): as a node killed before its next tick leaves it.
        let killed = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let (id, _) = try killed.createConversation(with: [Keys.bob.id], firstMessage: "hello")
        let sent = try killed.sendMessage("the word is \(word)", to: id)
        let reader = try openReaderInATransaction()
        _ = try killed.unsendMessage(sent.seq, in: id)
        try reader.inDatabase { db in try db.execute(sql: "COMMIT") }

        let started = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        #expect(try copies(of: word) > 0, "opening alone leaves the log as it is")
        #expect(started.scrub())
        #expect(try copies(of: word) == 0)
        #expect(try started.integrityCheck() == ["ok"])
        withExtendedLifetime(killed) {}
    }

    @Test func closingRemovesTheLogAndItsSharedMemory() throws {
        let store = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "hello")
        _ = try store.sendMessage("one more", to: id)
        #expect(FileManager.default.fileExists(atPath: directory.databasePath + "-wal"))
        try store.closeDatabase()
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(left.filter { $0.hasPrefix("confab.sqlite") } == ["confab.sqlite"])
        let reopened = try ConfabStore(path: directory.databasePath, identity: Keys.alice)
        #expect(try reopened.history(id).map(\.text) == ["hello", "one more"])
    }
}
