import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore
@testable import ConfabWire

/// Replies and mentions (Protocol.md §4.5): a reply shows its original as it reads now
/// (edited, deleted); a mention carries the key, and every reader draws it with its own name
/// for that key; a reference or a mention that names nothing it may is ignored.
@Suite("Replies and mentions")
struct ReplyMentionTests {
    private func group() throws -> (alice: ConfabStore, bob: ConfabStore, mallory: ConfabStore, id: ConversationID) {
        try aliceBobMallory(firstMessage: "who brings the cake?")
    }

    private let cake = MessageRef(author: Keys.alice.id, seq: 2)

    /// A message of `store`'s owner sealing `content` as is.
    private func forged(_ store: ConfabStore, in id: ConversationID, _ content: MessageContent) throws -> [UInt8] {
        let seq = try store.clock(of: id)[store.me] + 1
        let sealed = try ConversationCipher.sealMessage(
            content, key: try conversationKey(store, id), conversationID: id, author: store.me, seq: seq)
        return EntryCodec.encode(
            EntryCodec.sign(
                try nextDraft(store, in: id, body: .message(sealed: sealed), now: at(30)), with: store.identity))
    }

    @Test func aReplyQuotesItsOriginalAsItReadsNowOnEveryNode() throws {
        let (alice, bob, mallory, id) = try group()
        let answer = try bob.sendMessage("I will", to: id, replyTo: cake, now: at(10))
        for store in [alice, mallory] { try sync(id, from: bob, to: store) }
        func quote(_ store: ConfabStore) throws -> Quote? {
            try store.message(id, author: bob.me, seq: answer.seq)?.replyTo
        }
        for store in [alice, bob, mallory] {
            let quoted = try #require(try quote(store))
            #expect(quoted.ref == cake)
            #expect(quoted.text == "who brings the cake?")
            #expect(quoted.isHeld && !quoted.isDeleted)
        }
        #expect(try quote(bob)?.authorName == Keys.alice.id.shortHex)
        #expect(try quote(alice)?.authorName == "You")
        _ = try alice.editMessage(2, in: id, text: "who brings the big cake?", now: at(11))
        for store in [bob, mallory] { try sync(id, from: alice, to: store) }
        for store in [alice, bob, mallory] { #expect(try quote(store)?.text == "who brings the big cake?") }
        _ = try alice.unsendMessage(2, in: id, now: at(12))
        for store in [bob, mallory] { try sync(id, from: alice, to: store) }
        for store in [alice, bob, mallory] {
            let quoted = try #require(try quote(store))
            #expect(quoted.isDeleted && quoted.text == nil)
            #expect(quoted.summary == "message deleted")
        }
        // A deleted message cannot be answered, nor can one that is not there.
        #expect(throws: StoreError.self) { try bob.sendMessage("too late", to: id, replyTo: cake) }
        #expect(throws: StoreError.self) {
            try bob.sendMessage("?", to: id, replyTo: MessageRef(author: alice.me, seq: 40))
        }
    }

    @Test func aReplyThatNamesNothingItMayIsAPlainMessage() throws {
        let (alice, bob, mallory, id) = try group()
        let receipt = try #require(try bob.markRead(id, now: at(3)))
        try sync(id, from: bob, to: mallory)
        try sync(id, from: bob, to: alice)
        let (other, _) = try alice.createConversation(with: [Keys.mallory.id], firstMessage: "elsewhere", now: at(4))
        _ = try alice.sendMessage("elsewhere again", to: other, now: at(5))
        try sync(other, from: alice, to: mallory)
        let targets = [
            MessageRef(author: alice.me, seq: 3),  // not written yet here; a message in the other conversation
            MessageRef(author: bob.me, seq: receipt.seq),  // a receipt
            MessageRef(author: mallory.me, seq: 3),  // the reply itself (Mallory's third entry here)
        ]
        for (index, target) in targets.enumerated() {
            let bytes = try forged(mallory, in: id, MessageContent(text: "lie \(index)", replyTo: target))
            for store in [mallory, alice, bob] { #expect(isAppended(try store.append(bytes))) }
        }
        for store in [alice, bob, mallory] {
            let lies = try store.history(id).filter { $0.author == mallory.me }
            #expect(lies.map(\.text) == ["lie 0", "lie 1", "lie 2"])
            #expect(lies.allSatisfy { $0.replyTo == nil })
        }
    }

    @Test func mentionsCarryTheKeyAndEveryReaderDrawsItsOwnName() throws {
        let (alice, bob, mallory, id) = try group()
        try alice.savePeer(bob.me, name: "Bob")
        try alice.savePeer(mallory.me, name: "Mal")
        try bob.savePeer(mallory.me, name: "Mallory W")
        try bob.setDisplayName("Robert")
        let sent = try alice.sendMessage("@bob and @Mal: who brings the cake? (mail me@home)", to: id, now: at(10))
        for store in [bob, mallory] { try sync(id, from: alice, to: store) }
        func shown(_ store: ConfabStore) throws -> ChatMessage {
            try #require(try store.message(id, author: alice.me, seq: sent.seq))
        }
        #expect(try shown(alice).text == "@Bob and @Mal: who brings the cake? (mail me@home)")
        #expect(try shown(bob).text == "@Robert and @Mallory W: who brings the cake? (mail me@home)")
        #expect(try shown(mallory).text == "@\(bob.me.shortHex) and @you: who brings the cake? (mail me@home)")
        #expect(try shown(bob).mentions.map(\.id) == [bob.me, mallory.me])
        #expect(
            try bob.conversation(id)?.lastMessage?.text == "@Robert and @Mallory W: who brings the cake? (mail me@home)"
        )
        #expect(try shown(bob).mentionsMe && shown(mallory).mentionsMe)
        #expect(try !shown(alice).mentionsMe)
        // An edit's mentions replace the message's.
        _ = try alice.editMessage(sent.seq, in: id, text: "only @Mal, sorry", now: at(11))
        for store in [bob, mallory] { try sync(id, from: alice, to: store) }
        #expect(try shown(bob).text == "only @Mallory W, sorry")
        #expect(try !shown(bob).mentionsMe && shown(mallory).mentionsMe)
        // A deletion takes them with the text.
        _ = try alice.unsendMessage(sent.seq, in: id, now: at(12))
        try sync(id, from: alice, to: mallory)
        #expect(try shown(mallory).mentions.isEmpty && !shown(mallory).mentionsMe)
    }

    @Test func aMentionOfSomeoneOutsideTheConversationOrOfNoRangeIsIgnored() throws {
        let (alice, bob, mallory, id) = try group()
        let text = "@carol @bob hello"
        let lies = [
            Mention(person: Keys.carol.id, start: 0, length: 6),  // not a participant
            Mention(person: bob.me, start: 3, length: 3),  // not at an "@"
            Mention(person: bob.me, start: 7, length: 40),  // past the end
            Mention(person: bob.me, start: 7, length: 4),  // the one honest range
            Mention(person: alice.me, start: 8, length: 3),  // overlaps it
        ]
        let bytes = try forged(mallory, in: id, MessageContent(text: text, mentions: lies))
        for store in [mallory, alice, bob] { #expect(isAppended(try store.append(bytes))) }
        let atBob = try #require(try bob.history(id).last)
        #expect(atBob.mentions.map(\.id) == [bob.me])
        #expect(atBob.mentionsMe)
        let atAlice = try #require(try alice.history(id).last)
        #expect(atAlice.text == "@carol @\(bob.me.shortHex) hello")
        #expect(!atAlice.mentionsMe)
    }

    /// A reply and mentions take from the text's room: the sealed message keeps the size
    /// earlier versions accept (Protocol.md §4.6).
    @Test func aReplyWithMentionsMustFitTheMessageLimit() throws {
        let (alice, bob, _, id) = try group()
        try alice.savePeer(bob.me, name: "Bob")
        let text = "@Bob " + String(repeating: "a", count: Limits.maxMessageTextBytes - 5)
        #expect(throws: StoreError.self) { _ = try alice.sendMessage(text, to: id, replyTo: cake) }
        let sent = try alice.sendMessage(text, to: id)
        #expect(try alice.message(id, author: alice.me, seq: sent.seq)?.mentions.map(\.id) == [bob.me])
    }
}
