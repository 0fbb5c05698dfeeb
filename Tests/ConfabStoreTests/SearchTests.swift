import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB
import Testing

@testable import ConfabStore

@Suite("Search")
struct SearchTests {
    private func setUp() throws -> (alice: ConfabStore, bob: ConfabStore, id: ConversationID) {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id], title: "Project Zephyr", firstMessage: "hello world", now: at(1))
        _ = try alice.sendMessages(["Let's meet at the café", "nothing to see"], to: id, now: at(2))
        _ = try alice.sendMessage("zephyr launch moved", to: id, now: at(3))
        try sync(id, from: alice, to: bob)
        return (alice, bob, id)
    }

    private func messageTexts(_ hits: [SearchHit]) -> [String?] {
        hits.compactMap { $0.message }.map(\.text)
    }

    @Test func prefixMatchesMessageText() throws {
        let (alice, bob, id) = try setUp()
        for store in [alice, bob] {
            let hits = try store.search("hel")
            #expect(messageTexts(hits) == ["hello world"])
            #expect(hits.first?.conversation.id == id)
            #expect(hits.first?.snippet?.contains("«hello»") == true)
        }
        #expect(messageTexts(try bob.search("world hello")) == ["hello world"])
        #expect(try bob.search("hello zebra").isEmpty)
        #expect(try bob.search("xylophone").isEmpty)
    }

    @Test(arguments: ["cafe", "CAFÉ", "café", "caf", "Cafe"])
    func diacriticsAndCaseAreIgnored(query: String) throws {
        let (_, bob, _) = try setUp()
        #expect(messageTexts(try bob.search(query)) == ["Let's meet at the café"])
    }

    @Test(arguments: [
        "\"", "*", "AND (", "NEAR(", "\"hello", "hello\"", "-", "OR", "hello OR", "text:hello", "'", "^", "(", ")",
        "\"\"\"", "a\"b", "NOT", "", "   ", "🙂",
    ])
    func queryTextIsNeverFTSSyntax(query: String) throws {
        let (_, bob, _) = try setUp()
        _ = try bob.search(query)
    }

    @Test func punctuationAroundWordsStillFinds() throws {
        let (_, bob, _) = try setUp()
        #expect(messageTexts(try bob.search("\"hello\" AND (")).isEmpty)  // "AND" must match too
        #expect(messageTexts(try bob.search("\"hello*")) == ["hello world"])
        #expect(try bob.search("").isEmpty)
    }

    @Test func titlesMatchAndComeFirst() throws {
        let (_, bob, id) = try setUp()
        let hits = try bob.search("zeph")
        #expect(hits.count == 2)
        #expect(hits.first?.message == nil)
        #expect(hits.first?.conversation.id == id)
        #expect(hits.first?.snippet == "Project Zephyr")
        #expect(hits.last?.message?.text == "zephyr launch moved")
    }

    @Test func messagesComeNewestFirstAndRespectTheLimit() throws {
        let (alice, _, id) = try setUp()
        _ = try alice.sendMessage("another launch", to: id, now: at(9))
        #expect(messageTexts(try alice.search("launch")) == ["another launch", "zephyr launch moved"])
        #expect(messageTexts(try alice.search("launch", limit: 1)) == ["another launch"])
    }

    @Test func participantNamesAreIndexedAndFollowRenames() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        // Named before the conversation arrives...
        try bob.savePeer(Keys.alice.id, name: "Alice Liddell")
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], now: at(1))
        try sync(id, from: alice, to: bob)
        #expect(try bob.search("lidd").map(\.conversation.id) == [id])
        // ...and renamed after.
        try bob.savePeer(Keys.alice.id, name: "Alicia Wonder")
        #expect(try bob.search("lidd").isEmpty)
        #expect(try bob.search("wond").map(\.conversation.id) == [id])
        // Alice named Bob only after the conversation existed.
        #expect(try alice.search("robert").isEmpty)
        try alice.savePeer(Keys.bob.id, name: "Robert")
        #expect(try alice.search("robert").map(\.conversation.id) == [id])
        #expect(try alice.search("robert").first?.message == nil)
    }

    @Test func deletedConversationsAreNotFound() throws {
        let (_, bob, id) = try setUp()
        try bob.deleteConversation(id)
        #expect(try bob.search("hello").isEmpty)
        #expect(try bob.search("zephyr").isEmpty)
    }

    @Test func outsidersFindNothing() throws {
        let (alice, _, id) = try setUp()
        let carol = try makeStore(Keys.carol)
        try sync(id, from: alice, to: carol, asRelay: true)  // not a participant
        #expect(try carol.search("hello").isEmpty)
    }

    /// Messages enter the index once per commit, after every write in it: a batch that
    /// brings a message and its edit, and another message and its unsend, leaves an index
    /// that finds exactly what is shown; edits and deletions of indexed rows reach it later.
    @Test func aBatchThatEditsAndUnsendsWhatItBringsIsIndexedAsShown() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id], title: nil, firstMessage: "walrus plan", now: at(1))
        _ = try alice.editMessage(2, in: id, text: "narwhal plan", now: at(2))
        let secret = try alice.sendMessage("pelican secret", to: id, now: at(3))
        _ = try alice.unsendMessage(secret.seq, in: id, now: at(4))
        #expect(try sync(id, from: alice, to: bob) >= 5, "one batch, one commit on Bob's side")
        for store in [alice, bob] {
            #expect(messageTexts(try store.search("narwhal")) == ["narwhal plan"])
            #expect(try store.search("walrus").isEmpty)
            #expect(try store.search("pelican").isEmpty)
            #expect(try expectSearchIndexMatchesMessages(store) == 2)
        }
        _ = try alice.editMessage(2, in: id, text: "octopus plan", now: at(5))
        try sync(id, from: alice, to: bob)
        #expect(messageTexts(try bob.search("octopus")) == ["octopus plan"])
        #expect(try bob.search("narwhal").isEmpty)
        #expect(try expectSearchIndexMatchesMessages(bob) == 2)
        try bob.deleteConversation(id)
        #expect(try bob.search("octopus").isEmpty)
        #expect(try expectSearchIndexMatchesMessages(bob) == 0)
    }

    /// A store from before the index was written per commit keeps what its trigger indexed,
    /// and indexes what comes after; its old rows still leave the index when edited or deleted.
    @Test func aStoreIndexedByTheOldTriggerUpgradesAndKeepsItsIndex() throws {
        let queue = try DatabaseQueue()
        try ConfabStore.migrator.migrate(queue, upTo: "v9-files")
        let insert = """
            INSERT INTO message(conversationId, author, seq, timestamp, clockSum, text) VALUES (?, ?, ?, 1, 1, ?)
            """
        let conversation = [UInt8](repeating: 7, count: 16)
        try queue.write { db in
            for (seq, text) in [(1, "alpaca one"), (2, "bison two"), (3, "camel three")] {
                try db.execute(sql: insert, arguments: [conversation, Keys.bob.id.bytes, seq, text])
            }
        }
        let store = try ConfabStore(writer: queue, identity: Keys.alice)
        try store.write { db in
            try db.execute(sql: insert, arguments: [conversation, Keys.bob.id.bytes, 4, "dingo four"])
            try db.execute(sql: "UPDATE message SET text = 'bison again' WHERE seq = 2")
            try db.execute(sql: "DELETE FROM message WHERE seq = 3")
        }
        let matches = { (word: String) in
            try store.read { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT m.text FROM message_fts f JOIN message m ON m.id = f.rowid
                        WHERE message_fts MATCH ? ORDER BY m.seq
                        """, arguments: [word])
            }
        }
        #expect(try matches("alpaca") == ["alpaca one"])
        #expect(try matches("bison") == ["bison again"])
        #expect(try matches("two").isEmpty)
        #expect(try matches("camel").isEmpty)
        #expect(try matches("dingo") == ["dingo four"])
        #expect(try expectSearchIndexMatchesMessages(store) == 6)
    }

    /// The index holds exactly the words, at the positions, of the messages with text: its
    /// every entry (`fts5vocab`) against an index built afresh from the rows. (FTS5's
    /// integrity-check cannot tell: it counts rows with no text as missing from the index.)
    /// Returns how many word instances it compared.
    @discardableResult
    private func expectSearchIndexMatchesMessages(
        _ store: ConfabStore, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        let (missing, extra, total): (Int, Int, Int) = try store.write { db in
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE temp.expected USING fts5(text, tokenize='unicode61 remove_diacritics 2');
                    INSERT INTO temp.expected(rowid, text) SELECT id, text FROM message WHERE text IS NOT NULL;
                    CREATE VIRTUAL TABLE temp.expected_words USING fts5vocab(temp, expected, instance);
                    CREATE VIRTUAL TABLE temp.held_words USING fts5vocab(main, message_fts, instance);
                    """)
            let difference = { (left: String, right: String) in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM (
                            SELECT term, doc, col, offset FROM \(left)
                            EXCEPT SELECT term, doc, col, offset FROM \(right))
                        """) ?? -1
            }
            let counts = (
                try difference("expected_words", "held_words"), try difference("held_words", "expected_words"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM held_words") ?? -1
            )
            try db.execute(sql: "DROP TABLE temp.held_words; DROP TABLE temp.expected_words; DROP TABLE temp.expected")
            return counts
        }
        #expect(missing == 0, "words of stored messages missing from the index", sourceLocation: sourceLocation)
        #expect(extra == 0, "words in the index that no message holds", sourceLocation: sourceLocation)
        return total
    }
}
