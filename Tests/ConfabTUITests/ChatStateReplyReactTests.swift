import ConfabModel
import Testing

@testable import ConfabTUI

/// Ctrl+E on anyone's message: r replies (the input bar says to what, Enter sends the
/// reply, Esc drops it), + opens the emoji picker (a number, or a typed emoji; mine again
/// takes it back), g and Enter on a reply go to its original. Quotes and reactions are drawn
/// with the message, and a mention comes through a mute.
@Suite struct ChatStateReplyReactTests {
    let one = Fixtures.conversation(1)

    var question: ChatMessage { Fixtures.message(1, seq: 1, text: "who brings the cake?", order: 10) }

    /// Bob's question, then my reply quoting it.
    func openChat(reactions: [ReactionGroup] = []) -> ChatState {
        var question = self.question
        question.reactions = reactions
        var answer = Fixtures.message(1, seq: 1, from: Fixtures.me, text: "I do", order: 20)
        answer.replyTo = Quote(
            ref: question.ref, authorName: "Bob", text: question.text, isDeleted: false, isHeld: true)
        return Fixtures.state(open: 1, history: [question, answer])
    }

    @Test func rRepliesToTheSelectedMessageAndEnterSendsTheReply() {
        var state = openChat()
        _ = state.type("a draft ")
        _ = state.handle(.control("e"))
        _ = state.handle(.up)
        #expect(state.chat?.highlight == question.id)
        _ = state.handle(.character("r"))
        #expect(state.chat?.isSelecting == false)
        #expect(state.chat?.replyingTo?.ref == question.ref)
        let frame = Fixtures.render(state)
        #expect(frame.contains("↪ Replying to Bob: who brings the cake?"), "\(frame.joined)")
        _ = state.type("stays")
        let effects = state.handle(.enter)
        #expect(effects.contains(.send(one, text: "a draft stays", replyTo: question.ref)))
        #expect(state.chat?.replyingTo == nil, "one reply per selection")
        #expect(!Fixtures.render(state).contains("Replying to"))
    }

    @Test func escapeDropsTheReplyAndKeepsTheText() {
        var state = openChat()
        _ = state.handle(.control("e"))
        _ = state.handle(.character("r"))
        _ = state.type("hm")
        _ = state.handle(.escape)
        #expect(state.chat?.replyingTo == nil)
        #expect(state.focus == .chat, "the first Esc drops the reply, not the chat")
        #expect(state.input.text == "hm")
        #expect(state.handle(.enter).contains(.send(one, text: "hm", replyTo: nil)))
    }

    @Test func plusOpensThePickerAndANumberReacts() {
        var state = openChat()
        _ = state.handle(.control("e"))
        _ = state.handle(.up)
        _ = state.handle(.character("+"))
        guard case .react = state.overlay else {
            Issue.record("no picker")
            return
        }
        let frame = Fixtures.render(state)
        #expect(frame.contains("1 👍"))
        #expect(frame.contains("Bob: who brings the cake?"))
        let effects = state.handle(.character("2"))
        #expect(effects == [.react(one, target: question.ref, emoji: "❤️", removed: false)])
        #expect(state.overlay == nil)
        #expect(state.chat?.isSelecting == false)
    }

    @Test func aTypedEmojiReactsAndOneOfMineIsTakenBack() {
        let mine = ReactionGroup(
            emoji: "🎉", reactors: [NamedPerson(id: Fixtures.me, name: "You")], includesMe: true)
        var state = openChat(reactions: [mine])
        _ = state.handle(.control("e"))
        _ = state.handle(.up)
        _ = state.handle(.character("+"))
        _ = state.handle(.character("🎉"))
        #expect(state.handle(.enter) == [.react(one, target: question.ref, emoji: "🎉", removed: true)])
        _ = state.handle(.control("e"))
        _ = state.handle(.up)
        _ = state.handle(.character("+"))
        _ = state.type("no")
        #expect(state.handle(.enter).isEmpty, "not an emoji")
        #expect(state.notice?.contains("Not one emoji") == true)
        _ = state.handle(.escape)
        #expect(state.overlay == nil)
        #expect(state.chat?.isSelecting == true, "Esc closes the picker, the selection stays")
        // ←/→ and Enter pick a quick one.
        _ = state.handle(.down)
        _ = state.handle(.character("+"))
        _ = state.handle(.right)
        _ = state.handle(.right)
        let answerRef = MessageRef(author: Fixtures.me, seq: 1)
        #expect(state.handle(.enter) == [.react(one, target: answerRef, emoji: "😂", removed: false)])
    }

    @Test func gAndEnterOnAReplyGoToItsOriginal() {
        var state = openChat()
        _ = state.handle(.control("e"))
        #expect(state.notice?.contains("g original") == true)
        _ = state.handle(.character("g"))
        #expect(state.chat?.highlight == question.id)
        #expect(state.chat?.isSelecting == true)
        _ = state.handle(.down)
        #expect(state.handle(.enter).isEmpty)
        #expect(state.chat?.highlight == question.id, "Enter on a reply goes to its original too")
        // An original outside the loaded page: the chat is loaded again around it.
        var far = Fixtures.message(1, seq: 2, from: Fixtures.me, text: "and the drinks?", order: 30)
        far.replyTo = Quote(
            ref: MessageRef(author: Fixtures.bob, seq: 99), authorName: "Bob", text: "old", isDeleted: false,
            isHeld: true)
        _ = state.handle(.escape)
        _ = state.apply(.message(far))
        _ = state.handle(.control("e"))
        let effects = state.handle(.character("g"))
        let target = MessageRef(author: Fixtures.bob, seq: 99).id(in: one)
        #expect(effects == [.openConversation(one, around: target)])
    }

    @Test func quotesAndReactionsAreDrawnAndFollowTheOriginal() {
        let thumbs = ReactionGroup(
            emoji: "👍",
            reactors: [NamedPerson(id: Fixtures.me, name: "You"), NamedPerson(id: Fixtures.carol, name: "Carol")],
            includesMe: true)
        var state = openChat(reactions: [thumbs])
        var frame = Fixtures.render(state)
        #expect(frame.contains("↪ Bob: who brings the cake?"))
        #expect(frame.contains("👍 2 You, Carol"))
        var edited = question
        edited.editedAt = Fixtures.now
        edited = ChatMessage(
            conversationID: one, author: Fixtures.bob, authorName: "Bob", seq: 1, isMine: false,
            text: "who brings the big cake?", sentAt: question.sentAt, orderKey: question.orderKey, status: nil)
        _ = state.apply(.messageChanged(edited))
        frame = Fixtures.render(state)
        #expect(frame.contains("↪ Bob: who brings the big cake?"), "the quote follows the edit")
        #expect(!frame.contains("👍 2"), "the changed message came without reactions")
        var deleted = edited
        deleted.isDeleted = true
        _ = state.apply(.messageChanged(deleted))
        #expect(Fixtures.render(state).contains("↪ Bob: message deleted"))
    }

    @Test func aMentionOfMeNotifiesEvenInAMutedConversation() {
        var state = Fixtures.state(
            conversations: [Fixtures.summary(1), Fixtures.summary(2, muted: true)], open: 1, history: [])
        let plain = Fixtures.message(2, seq: 1, text: "anyone?")
        #expect(!state.apply(.message(plain)).contains(.notify(plain)), "muted")
        var mention = Fixtures.message(2, seq: 2, text: "@Alice you?")
        mention.mentionsMe = true
        #expect(state.apply(.message(mention)).contains(.notify(mention)))
        // And it shows that it mentions me.
        _ = state.handle(.control("n"))
        _ = state.apply(.history(Fixtures.conversation(2), [plain, mention], hasOlder: false, focus: nil))
        #expect(Fixtures.render(state).contains("mentions you"))
    }

    @Test func aDeletedMessageCannotBeRepliedOrReactedTo() {
        var deleted = Fixtures.message(1, seq: 1, text: nil)
        deleted.isDeleted = true
        var state = Fixtures.state(open: 1, history: [deleted])
        _ = state.handle(.control("e"))
        _ = state.handle(.character("r"))
        #expect(state.chat?.replyingTo == nil)
        _ = state.handle(.character("+"))
        #expect(state.overlay == nil)
        #expect(state.notice?.contains("deleted") == true)
    }
}
