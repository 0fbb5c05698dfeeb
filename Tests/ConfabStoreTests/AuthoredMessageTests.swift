import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

/// A message of mine as the write hands it on (to the node's watchers) is the message a
/// read gives back: built from what was written, never read back, it must not differ.
@Suite("Messages as written")
struct AuthoredMessageTests {
    private let cake = MessageRef(author: Keys.alice.id, seq: 2)

    private func readBack(_ store: ConfabStore, _ written: Authored) throws -> ChatMessage? {
        try store.message(written.entry.conversationID, author: store.me, seq: written.entry.seq)
    }

    @Test func aMessageAsWrittenIsTheMessageReadBack() throws {
        let (alice, bob, _, id) = try aliceBobMallory(firstMessage: "who brings the cake? @mallory")
        try bob.savePeer(alice.me, name: "Alice")
        try bob.savePeer(Keys.mallory.id, name: "Mal")
        let plain = try bob.writeMessage("I will", to: id, now: at(10))
        let mentioning = try bob.writeMessage("@Alice and @Mal: the cake is mine (mail me@home)", to: id, now: at(11))
        let reply = try bob.writeMessage("yes @mal", to: id, replyTo: cake, now: at(12))
        for written in [plain, mentioning, reply] {
            let shown = try #require(written.message)
            #expect(shown == (try readBack(bob, written)))
            #expect(shown.status == .sending && shown.isMine && shown.authorName == "You")
        }
        #expect(mentioning.message?.mentions.map(\.id) == [alice.me, Keys.mallory.id])
        #expect(reply.message?.replyTo?.ref == cake)
    }

    @Test func aReplyToAFormerMembersMessageNamesItAsTheHistoryDoes() throws {
        let (alice, _, _, id) = try aliceBobMallory(firstMessage: "hello")
        try alice.savePeer(Keys.mallory.id, name: "Mal")
        let hers = try mallorySays("mine", in: id, alice: alice)
        _ = try alice.changeMembers(of: id, remove: [Keys.mallory.id], now: at(20))
        let reply = try alice.writeMessage("noted", to: id, replyTo: hers, now: at(21))
        let shown = try #require(reply.message)
        #expect(shown == (try readBack(alice, reply)))
        #expect(shown.replyTo?.authorName == "Mal")
    }

    @Test func aRunOfMessagesAsWrittenIsWhatIsReadBack() throws {
        let (_, bob, _, id) = try aliceBobMallory(firstMessage: "hello")
        try bob.savePeer(Keys.alice.id, name: "Alice")
        let run = try bob.writeMessages(["one", "two @alice", "three"], to: id, now: at(10))
        #expect(run.count == 3)
        for written in run { #expect(written.message == (try readBack(bob, written))) }
    }

    @Test func theRecipientsAreCheckedBeforeAnythingIsWritten() throws {
        let (alice, _, _, id) = try aliceBobMallory(firstMessage: "hello")
        let before = try alice.clock(of: id)
        var seen: [NodeID] = []
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            _ = try alice.writeMessage("no", to: id, now: at(10)) { others in
                seen = others.map(\.id)
                throw Refused()
            }
        }
        #expect(seen == [Keys.bob.id, Keys.mallory.id])
        #expect(try alice.clock(of: id) == before)
        #expect(throws: Refused.self) {
            _ = try alice.writeMessages(["a", "b"], to: id, now: at(11)) { _ in throw Refused() }
        }
        #expect(try alice.clock(of: id) == before)
    }

    /// Mallory's message in alice's store, as a sync brings it.
    private func mallorySays(_ text: String, in id: ConversationID, alice: ConfabStore) throws -> MessageRef {
        let mallory = try makeStore(Keys.mallory)
        try sync(id, from: alice, to: mallory)
        let entry = try mallory.sendMessage(text, to: id, now: at(15))
        try sync(id, from: mallory, to: alice)
        return MessageRef(author: mallory.me, seq: entry.seq)
    }
}
