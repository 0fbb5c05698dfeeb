import ConfabModel
import Testing

@testable import ConfabTUI

/// Ctrl+E in the chat: select a message (anyone's: see ChatStateReplyReactTests for reply
/// and react), then for one of mine edit it (its text in the input bar,
/// Enter saves, Esc cancels) or delete it for everyone (asks first, only "y" deletes).
@Suite struct ChatStateMessageActionTests {
    let one = Fixtures.conversation(1)

    /// Bob's message, then two of mine (seq 1 and 2), the newest last.
    func openChat() -> ChatState {
        Fixtures.state(
            open: 1,
            history: [
                Fixtures.message(1, seq: 1, text: "from Bob", order: 10),
                Fixtures.message(1, seq: 1, from: Fixtures.me, text: "my first", order: 20),
                Fixtures.message(1, seq: 2, from: Fixtures.me, text: "my second", order: 30),
            ])
    }

    func myMessage(_ seq: UInt64) -> String { Fixtures.message(1, seq: seq, from: Fixtures.me).id }

    @Test func ctrlESelectsTheNewestMessageAndArrowsMoveAmongAll() {
        var state = openChat()
        _ = state.handle(.control("e"))
        #expect(state.chat?.isSelecting == true)
        #expect(state.chat?.highlight == myMessage(2))
        #expect(state.notice?.contains("e edit · d delete for everyone") == true)
        _ = state.handle(.up)
        #expect(state.chat?.highlight == myMessage(1))
        _ = state.handle(.up)
        let bobs = Fixtures.message(1, seq: 1, text: "from Bob").id
        #expect(state.chat?.highlight == bobs, "anyone's message is selectable, to reply or react")
        #expect(state.notice?.contains("r reply · + react") == true)
        #expect(state.notice?.contains("e edit") == false, "only mine can be edited")
        _ = state.handle(.up)
        #expect(state.chat?.highlight == bobs)
        _ = state.handle(.down)
        #expect(state.chat?.highlight == myMessage(1))
        _ = state.handle(.escape)
        #expect(state.chat?.isSelecting == false)
        #expect(state.chat?.highlight == nil)
        #expect(state.focus == .chat)
    }

    @Test func someoneElsesMessageCannotBeEditedOrDeleted() {
        var state = Fixtures.state(open: 1, history: [Fixtures.message(1, seq: 1, text: "from Bob")])
        _ = state.handle(.control("e"))
        #expect(state.chat?.isSelecting == true)
        #expect(state.handle(.character("e")).isEmpty)
        #expect(state.chat?.editing == nil)
        #expect(state.notice?.contains("Only your own messages can be edited") == true)
        _ = state.handle(.character("d"))
        #expect(state.overlay == nil)
        #expect(state.notice?.contains("Only your own messages") == true)
    }

    @Test func editingPutsTheTextInTheInputAndEnterSavesIt() {
        var state = openChat()
        _ = state.type("a draft")
        _ = state.handle(.control("e"))
        _ = state.handle(.up)
        _ = state.handle(.character("e"))
        #expect(state.input.text == "my first")
        #expect(state.chat?.editing == 1)
        #expect(state.notice?.contains("Editing") == true)
        _ = state.type(" (fixed)")
        let effects = state.handle(.enter)
        #expect(effects.contains(.edit(one, seq: 1, text: "my first (fixed)")))
        #expect(!effects.contains { if case .send = $0 { true } else { false } })
        #expect(state.chat?.editing == nil)
        #expect(state.input.text == "a draft", "what was typed before comes back")
    }

    @Test func escapeCancelsAnEditAndAnUnchangedTextIsNotSent() {
        var state = openChat()
        _ = state.handle(.control("e"))
        _ = state.handle(.enter)
        #expect(state.input.text == "my second")
        _ = state.handle(.escape)
        #expect(state.chat?.editing == nil)
        #expect(state.input.isEmpty)
        #expect(state.focus == .chat)
        _ = state.handle(.control("e"))
        _ = state.handle(.character("e"))
        #expect(state.handle(.enter).allSatisfy { if case .edit = $0 { false } else { true } })
    }

    @Test func leavingTheChatMidEditCancelsIt() {
        var state = Fixtures.state(
            conversations: [Fixtures.summary(1), Fixtures.summary(2)], open: 1,
            history: [Fixtures.message(1, seq: 2, from: Fixtures.me, text: "my second", order: 30)])
        _ = state.type("draft")
        _ = state.handle(.control("e"))
        _ = state.handle(.character("e"))
        #expect(state.handle(.control("e")).isEmpty)
        #expect(state.chat?.isSelecting == false, "no selection while editing")
        _ = state.handle(.control("n"))
        #expect(state.openConversation == Fixtures.conversation(2))
        #expect(state.input.isEmpty)
        _ = state.handle(.control("p"))
        #expect(state.openConversation == one)
        #expect(state.input.text == "draft", "the draft from before the edit, not the edit's text")
        #expect(state.chat?.editing == nil)
    }

    @Test func deleteForEveryoneAsksFirstAndOnlyYDeletes() {
        var state = openChat()
        _ = state.handle(.control("e"))
        _ = state.handle(.character("d"))
        guard case .confirmUnsend(let id, let seq) = state.overlay else {
            Issue.record("no confirmation")
            return
        }
        #expect(id == one && seq == 2)
        #expect(Fixtures.render(state).contains("Delete this message for everyone?"))
        #expect(state.handle(.enter).allSatisfy { if case .unsend = $0 { false } else { true } })
        #expect(state.overlay == nil)
        _ = state.handle(.character("d"))
        #expect(state.handle(.character("y")).contains(.unsend(one, seq: 2)))
        #expect(state.chat?.isSelecting == false)
    }

    @Test func nothingToSelectInAnEmptyChat() {
        var state = Fixtures.state(open: 1, history: [])
        _ = state.handle(.control("e"))
        #expect(state.chat?.isSelecting == false)
        #expect(state.notice?.contains("No message here") == true)
    }

    @Test func anEditedOrDeletedMessageReplacesTheOneShown() {
        var state = openChat()
        var edited = Fixtures.message(1, seq: 2, from: Fixtures.me, text: "my second, fixed", order: 30)
        edited.editedAt = Fixtures.now
        #expect(state.apply(.messageChanged(edited)).isEmpty)
        #expect(state.chat?.messages.count == 3)
        #expect(state.chat?.messages.last?.text == "my second, fixed")
        var frame = Fixtures.render(state)
        #expect(frame.contains("my second, fixed"))
        #expect(frame.contains("edited"))
        var deleted = Fixtures.message(1, seq: 1, text: nil, order: 10)
        deleted.isDeleted = true
        #expect(state.apply(.messageChanged(deleted)).isEmpty)
        frame = Fixtures.render(state)
        #expect(frame.contains("message deleted"))
        #expect(!frame.contains("from Bob"))
        #expect(state.summary(one)?.unreadCount == 0, "a change is not a new message")
    }

    @Test func aChangeInAnotherConversationIsNotNewsButTheLatestPreviewFollows() {
        let two = Fixtures.conversation(2)
        var state = Fixtures.state(
            conversations: [Fixtures.summary(1), Fixtures.summary(2, last: "old text", at: Fixtures.now)], open: 1,
            history: [])
        var edited = Fixtures.message(2, seq: 4, text: "new text", at: Fixtures.now)
        edited.editedAt = Fixtures.now
        #expect(state.apply(.messageChanged(edited)).isEmpty, "no notification")
        #expect(state.summary(two)?.unreadCount == 0)
        #expect(state.summary(two)?.lastMessage?.text == "new text")
        // An older message's change leaves the preview alone.
        var older = Fixtures.message(2, seq: 1, text: nil, at: Fixtures.ago(hours: 2))
        older.isDeleted = true
        _ = state.apply(.messageChanged(older))
        #expect(state.summary(two)?.lastMessage?.text == "new text")
        #expect(state.openConversation == one)
    }
}
