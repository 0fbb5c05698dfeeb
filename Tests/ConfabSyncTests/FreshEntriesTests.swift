import ConfabCrypto
import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabSync

/// The eager push takes my entries just written from memory instead of the store: what it
/// takes must be exactly what the store would have given, bytes and order alike, and it
/// must decline whatever it cannot answer for in full.
@Suite struct FreshEntriesTests {
    let store: ConfabStore
    let conversation: ConversationID

    init() throws {
        store = try ConfabStore.inMemory(identity: try SigningKeyPair(seed: [UInt8](repeating: 4, count: 32)))
        let bob = NodeID(SigningKeyPair.generate().publicKey)
        conversation = try store.createConversation(with: [bob], firstMessage: "first").id
    }

    @Test func whatItGivesIsWhatTheStoreGives() throws {
        let written = try store.sendMessages(["a", "b @bob", "c", "d"], to: conversation)
        let fresh = FreshEntries(written, me: store.me)
        let top = try store.clock(of: conversation)[store.me]
        #expect(top == 6)
        // From where the run begins (seq 3) or anywhere in it, any limit.
        for after in UInt64(2)...6 {
            for limit in [1, 2, 10] {
                let taken = try #require(fresh.entries(in: conversation, after: after, limit: limit, top: top))
                let stored = try store.sequencedEntries(in: conversation, author: store.me, after: after, limit: limit)
                #expect(taken == stored, "after \(after), limit \(limit)")
            }
        }
    }

    @Test func itDeclinesWhatItDoesNotHoldInFull() throws {
        let written = [try store.sendMessage("a", to: conversation), try store.sendMessage("b", to: conversation)]
        let fresh = FreshEntries(written, me: store.me)
        // Seq 2 (the first message) is only in the store.
        #expect(fresh.entries(in: conversation, after: 1, limit: 10, top: 4) == nil)
        #expect(fresh.entries(in: conversation, after: 2, limit: 10, top: 4)?.map(\.seq) == [3, 4])
        // Something of mine above the run: not the top of my log any more.
        #expect(fresh.entries(in: conversation, after: 2, limit: 10, top: 5) == nil)
        // Another conversation, or a run with a hole, answers for nothing.
        #expect(fresh.entries(in: ConversationID.random(), after: 0, limit: 10, top: 4) == nil)
        let holed = FreshEntries([written[0], try store.sendMessage("c", to: conversation)], me: store.me)
        #expect(holed.entries(in: conversation, after: 2, limit: 10, top: 5) == nil)
    }

    @Test func othersEntriesAreNeverTakenAsMine() throws {
        let written = try store.sendMessages(["a", "b"], to: conversation)
        let other = FreshEntries(written, me: NodeID(bytes: [UInt8](repeating: 9, count: 32))!)
        #expect(other.entries(in: conversation, after: 2, limit: 10, top: 4) == nil)
    }
}
