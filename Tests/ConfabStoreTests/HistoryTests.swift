import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

@Suite("History")
struct HistoryTests {
    /// A busy conversation: three people writing, syncing only now and then, so many
    /// messages are concurrent. Ends with everyone in sync.
    private func busyConversation(seed: UInt64) throws -> (stores: [ConfabStore], id: ConversationID, sent: Int) {
        var rng = SplitMix64(seed: seed)
        let stores = try [Keys.alice, Keys.bob, Keys.carol].map(makeStore)
        let (id, _) = try stores[0].createConversation(with: [Keys.bob.id, Keys.carol.id], now: at(0))
        try sync(id, from: stores[0], to: stores[1])
        try sync(id, from: stores[0], to: stores[2])
        var sent = 0
        for step in 1...45 {
            let i = Int.random(in: 0..<3, using: &rng)
            if Bool.random(using: &rng) {
                // Wall clocks disagree by up to a minute either way.
                let skew = Int.random(in: -60...60, using: &rng)
                _ = try stores[i].sendMessage("message \(step)", to: id, now: at(step * 10 + skew))
                sent += 1
            } else {
                let j = (i + Int.random(in: 1...2, using: &rng)) % 3
                try sync(id, from: stores[i], to: stores[j])
            }
        }
        for _ in 0..<2 {
            for i in 0..<3 {
                for j in 0..<3 where i != j { try sync(id, from: stores[i], to: stores[j]) }
            }
        }
        return (stores, id, sent)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func everyNodeShowsTheSameOrder(seed: UInt64) throws {
        let (stores, id, sent) = try busyConversation(seed: seed)
        let reference = try stores[0].history(id, limit: 1000)
        #expect(reference.count == sent)
        #expect(Set(try stores.map { try $0.clock(of: id) }).count == 1)
        for store in stores.dropFirst() {
            let history = try store.history(id, limit: 1000)
            #expect(history.map(\.id) == reference.map(\.id))
            #expect(history.map(\.text) == reference.map(\.text))
        }
        #expect(zip(reference, reference.dropFirst()).allSatisfy { $0.orderKey < $1.orderKey })
    }

    @Test(arguments: [1, 4, 7, 50])
    func pagingBackwardsIsDisjointAndComplete(pageSize: Int) throws {
        let (stores, id, sent) = try busyConversation(seed: 4)
        let store = stores[1]
        let everything = try store.history(id, limit: 1000)
        #expect(everything.count == sent)

        var pages: [[ChatMessage]] = []
        var before: DisplayOrderKey?
        while true {
            let page = try store.history(id, limit: pageSize, before: before)
            if page.isEmpty { break }
            #expect(page.count <= pageSize)
            #expect(zip(page, page.dropFirst()).allSatisfy { $0.orderKey < $1.orderKey })
            if let before { #expect(page.allSatisfy { $0.orderKey < before }) }
            pages.append(page)
            before = page.first?.orderKey
            if pages.count > sent + 1 { break }
        }
        let ids = pages.flatMap { $0.map(\.id) }
        #expect(Set(ids).count == ids.count)
        #expect(Array(pages.reversed().joined()).map(\.id) == everything.map(\.id))
        #expect(try store.history(id, limit: pageSize).map(\.id) == Array(everything.suffix(pageSize)).map(\.id))
    }

    @Test(arguments: [0, 5, 17])
    func openingAtAMessageShowsContextBeforeItAndEverythingAfter(index: Int) throws {
        let (stores, id, _) = try busyConversation(seed: 5)
        let everything = try stores[2].history(id, limit: 1000)
        let target = everything[index]
        let (page, hasOlder) = try stores[2].history(id, from: target.orderKey, context: 3)
        let start = max(0, index - 3)
        #expect(page.map(\.id) == everything[start...].map(\.id))
        #expect(hasOlder == (start > 0))
    }

    @Test func aReplyFollowsWhatItAnswersDespiteASlowClock() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "question", now: at(1000))
        try sync(id, from: alice, to: bob)
        // Bob's clock is a quarter of an hour behind.
        _ = try bob.sendMessage("answer", to: id, now: at(100))
        try sync(id, from: bob, to: alice)
        #expect(try alice.history(id).map(\.text) == ["question", "answer"])
        #expect(try bob.history(id).map(\.text) == ["question", "answer"])
    }

    @Test func concurrentMessagesTieBreakByTimestamp() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], now: at(0))
        try sync(id, from: alice, to: bob)
        // Neither saw the other's message: equal clock sums, so the earlier one first.
        _ = try bob.sendMessage("bob first", to: id, now: at(5))
        _ = try alice.sendMessage("alice second", to: id, now: at(6))
        try syncBoth(id, alice, bob)
        #expect(try alice.history(id).map(\.text) == ["bob first", "alice second"])
        #expect(try bob.history(id).map(\.text) == ["bob first", "alice second"])
    }

    /// A question whose causal past has not arrived waits for it (its clock names Bob's
    /// messages): nobody stores it, so nobody answers it, without that past, and the answer
    /// sorts after the question on every node.
    @Test func aQuestionWaitsForItsCausalPast() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let carol = try makeStore(Keys.carol)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id, Keys.carol.id], now: at(0))
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: carol)
        _ = try bob.sendMessages(["b1", "b2", "b3"], to: id, now: at(10))
        try sync(id, from: bob, to: alice)
        _ = try alice.sendMessage("question", to: id, now: at(20))
        // Carol receives Alice's log alone, as after a sync cut short.
        let early = try carol.append(batch: try alice.entries(in: id, author: Keys.alice.id, after: 1))
        #expect(early.map { (try? $0.get()) == nil } == [true])
        #expect(try carol.history(id).isEmpty)
        try sync(id, from: bob, to: carol)
        try sync(id, from: alice, to: carol)
        _ = try carol.sendMessage("answer", to: id, now: at(30))
        for store in [alice, bob, carol] {
            for other in [alice, bob, carol] where other !== store { try sync(id, from: other, to: store) }
        }
        let texts = try alice.history(id).map(\.text)
        #expect(texts == ["b1", "b2", "b3", "question", "answer"])
        #expect(try bob.history(id).map(\.text) == texts)
        #expect(try carol.history(id).map(\.text) == texts)
    }
}
