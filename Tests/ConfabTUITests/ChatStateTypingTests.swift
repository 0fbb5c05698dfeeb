import ConfabClient
import ConfabModel
import ConfabNode
import Testing

@testable import ConfabTUI

/// "Is typing…" in the chat: who the header names, what keys say to the node, and Ctrl+T.
@Suite struct ChatStateTypingTests {
    let one = Fixtures.conversation(1)
    let two = Fixtures.conversation(2)

    func group() -> ChatState {
        Fixtures.state(
            conversations: [
                Fixtures.summary(
                    1, title: "Plans",
                    with: [(Fixtures.bob, "Bob"), (Fixtures.carol, "Carol"), (Fixtures.dave, "Dave")]),
                Fixtures.summary(2),
            ],
            open: 1, history: [Fixtures.message(1, seq: 1)])
    }

    func typing(_ who: NodeID, _ active: Bool, in conversation: ConversationID? = nil) -> ChatUpdate {
        .typing(TypingEvent(conversation: conversation ?? one, peer: who, name: "claimed", active: active))
    }

    /// The header's second line.
    func rule(_ state: ChatState) -> String {
        Fixtures.render(state).pane(from: Layout(width: 100, height: 30).listWidth + 1)[1]
    }

    @Test func theHeaderNamesOneTwoOrCountsThoseTyping() {
        var state = group()
        #expect(!rule(state).contains("typing"))
        _ = state.apply(typing(Fixtures.bob, true))
        #expect(rule(state).hasPrefix("─ Bob is typing… ──"))
        _ = state.apply(typing(Fixtures.carol, true))
        #expect(rule(state).contains("Bob and Carol are typing…"))
        _ = state.apply(typing(Fixtures.dave, true))
        #expect(rule(state).contains("3 people are typing…"))
        _ = state.apply(typing(Fixtures.bob, false))
        _ = state.apply(typing(Fixtures.dave, false))
        #expect(rule(state).contains("Carol is typing…"))
        // Only in its own conversation's header.
        _ = state.apply(typing(Fixtures.bob, true, in: two))
        #expect(!rule(state).contains("Bob"))
        _ = state.apply(typing(Fixtures.carol, false))
        #expect(!rule(state).contains("typing"))
        // The name is the participant's here, not the one the event carries.
        #expect(!rule(state).contains("claimed"))
    }

    @Test func typingSaysSoAndEmptyingTheInputOrLeavingStopsAndSendingEndsIt() {
        var state = group()
        #expect(state.type("hi") == [.typing(one, active: true), .typing(one, active: true)])
        // Keys that change nothing say nothing.
        #expect(state.handle(.home).isEmpty)
        #expect(state.handle(.backspace).isEmpty)
        #expect(state.handle(.delete) == [.typing(one, active: true)])
        #expect(state.handle(.delete) == [.typing(one, active: false)])
        // A stop is said once, and only after a start; blanks are nothing typed.
        #expect(state.type(" ").isEmpty)
        _ = state.handle(.backspace)
        _ = state.type("hello")
        // Sent, the message itself ends the indication everywhere (§10.2): no stop beside it,
        // and none later for a typing the message already ended.
        #expect(state.handle(.enter) == [.send(one, text: "hello")])
        #expect(state.open(two) == [.openConversation(two, around: nil)])
        _ = state.open(one)
        _ = state.type("x")
        #expect(state.handle(.escape) == [.typing(one, active: false)])
        #expect(state.handle(.tab).isEmpty)
        _ = state.type("y")
        #expect(state.handle(.tab) == [.typing(one, active: false)])
        _ = state.handle(.tab)
        _ = state.type("z")
        // Opening another conversation stops it in the one left.
        #expect(state.open(two) == [.typing(one, active: false), .openConversation(two, around: nil)])
        #expect(state.open(one) == [.openConversation(one, around: nil)])
    }

    @Test func editingASentMessageIsNotTyping() {
        var state = Fixtures.state(open: 1, history: [Fixtures.message(1, seq: 1, from: Fixtures.me, text: "mine")])
        _ = state.handle(.control("e"))
        _ = state.handle(.character("e"))
        #expect(state.chat?.editing == 1)
        #expect(state.type("!").isEmpty)
    }

    @Test func ctrlTTurnsItOffBothWaysAndOnAgain() {
        var state = group()
        _ = state.apply(typing(Fixtures.bob, true))
        _ = state.type("draft")
        #expect(
            state.handle(.control("t")) == [.typing(one, active: false), .setTypingIndicators(false)])
        #expect(state.notice?.contains("Typing indicators off") == true)
        #expect(!rule(state).contains("typing"))
        #expect(state.type("more").isEmpty)
        _ = state.apply(typing(Fixtures.carol, true))
        #expect(!rule(state).contains("typing"))
        #expect(state.handle(.control("t")) == [.setTypingIndicators(true)])
        _ = state.apply(typing(Fixtures.carol, true))
        #expect(rule(state).contains("Carol is typing…"))
        // A node gone takes everyone's with it.
        _ = state.apply(.typingCleared)
        #expect(!rule(state).contains("typing"))
    }

    @Test func ctrlZSuspendsFromAnywhere() {
        var state = group()
        #expect(state.handle(.control("z")) == [.suspend])
        _ = state.handle(.control("k"))
        #expect(state.handle(.control("z")) == [.suspend])
        #expect(state.overlay != nil)
    }
}
