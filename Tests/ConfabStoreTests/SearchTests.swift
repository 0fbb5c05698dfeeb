import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
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
}
