import ConfabModel
import Testing

@testable import ConfabTUI

@Suite struct ChatStateKeyTests {
    let one = Fixtures.conversation(1)
    let two = Fixtures.conversation(2)
    let three = Fixtures.conversation(3)

    /// Bob (newest), Carol, Dave — in that order in the list.
    func threeConversations() -> [ConversationSummary] {
        [
            Fixtures.summary(1, with: [(Fixtures.bob, "Bob")], at: Fixtures.ago(hours: 1)),
            Fixtures.summary(2, with: [(Fixtures.carol, "Carol")], at: Fixtures.ago(hours: 2), unread: 4),
            Fixtures.summary(3, with: [(Fixtures.dave, "Dave")], at: Fixtures.ago(hours: 3)),
        ]
    }

    func openChat() -> ChatState {
        Fixtures.state(conversations: threeConversations(), open: 1, history: Fixtures.messages(1, count: 2))
    }

    @Test func enterOnARowOpensItAndFocusesTheChat() {
        var state = Fixtures.state(conversations: threeConversations())
        #expect(state.handle(.down) == [])
        #expect(state.handle(.enter) == [.openConversation(two, around: nil)])
        #expect(state.openConversation == two)
        #expect(state.focus == .chat)
    }

    @Test func enterSendsWhatWasTypedAndClearsTheInput() {
        var state = openChat()
        _ = state.type("hi Bob")
        // What was typing stops as the message goes (ChatStateTypingTests).
        #expect(state.handle(.enter) == [.send(one, text: "hi Bob")])
        #expect(state.input.isEmpty)
    }

    @Test func altEnterAddsALineAndTrailingNewlinesAreNotSent() {
        var state = openChat()
        _ = state.type("  first")
        #expect(state.handle(.altEnter) == [.typing(one, active: true)])
        _ = state.type("second")
        _ = state.handle(.altEnter)
        _ = state.handle(.altEnter)
        #expect(state.handle(.enter) == [.send(one, text: "  first\nsecond")])
    }

    @Test func blankInputIsNotSent() {
        var state = openChat()
        #expect(state.handle(.enter) == [])
        _ = state.type("   ")
        _ = state.handle(.altEnter)
        #expect(state.handle(.enter) == [])
        #expect(state.input.text == "   \n")
    }

    @Test func aPasteKeepsItsNewlinesAndDoesNotSend() {
        var state = openChat()
        #expect(state.handle(.paste("one\ntwo\n")) == [.typing(one, active: true)])
        _ = state.type("three")
        #expect(state.handle(.enter) == [.send(one, text: "one\ntwo\nthree")])
    }

    @Test func theCursorMovesAndEditsInTheInput() {
        var state = openChat()
        _ = state.type("hllo")
        _ = state.handle(.home)
        _ = state.handle(.right)
        _ = state.type("e")
        _ = state.handle(.end)
        _ = state.type("!")
        _ = state.handle(.left)
        _ = state.handle(.backspace)
        _ = state.handle(.delete)
        #expect(state.input.text == "hell")
    }

    @Test func aMessageOverTheSizeLimitIsNotSent() {
        var state = openChat()
        _ = state.handle(.paste(String(repeating: "x", count: Limits.maxMessageTextBytes + 1)))
        #expect(state.handle(.enter) == [])
        #expect(state.notice?.contains("Too long") == true)
        #expect(!state.input.isEmpty)
    }

    @Test func qQuitsFromTheListAndIsTypedInTheChat() {
        var chat = openChat()
        #expect(chat.handle(.character("q")) == [.typing(one, active: true)])
        #expect(chat.input.text == "q")
        #expect(!chat.wantsQuit)
        var list = Fixtures.state()
        #expect(list.handle(.character("q")) == [.quit])
        #expect(list.wantsQuit)
    }

    @Test func ctrlCQuitsFromAnywhere() {
        var chat = openChat()
        #expect(chat.handle(.control("c")) == [.quit])
        #expect(chat.wantsQuit)
        var overlay = Fixtures.state()
        _ = overlay.handle(.character("/"))
        #expect(overlay.handle(.control("c")) == [.quit])
    }

    @Test func questionMarkOpensHelpFromTheListAndIsTypedInTheChat() {
        var state = openChat()
        _ = state.handle(.character("?"))
        #expect(state.overlay == nil)
        #expect(state.input.text == "?")
        _ = state.handle(.escape)
        _ = state.handle(.character("?"))
        guard case .help = state.overlay else {
            Issue.record("no help overlay")
            return
        }
        let frame = Fixtures.render(state)
        for binding in KeyBindings.sections.flatMap(\.bindings).prefix(8) {
            #expect(frame.contains(binding.keys), "\(binding.keys)")
        }
        _ = state.handle(.character("x"))
        #expect(state.overlay == nil)
    }

    @Test func helpScrollsToEveryBindingOnAShortScreen() {
        var state = Fixtures.state(width: 80, height: 24)
        _ = state.handle(.character("?"))
        var seen = Fixtures.render(state).joined
        #expect(seen.contains(HelpOverlay.scrollFooter))
        for _ in 0..<3 {
            _ = state.handle(.pageDown)
            seen += Fixtures.render(state).joined
        }
        for binding in KeyBindings.sections.flatMap(\.bindings) {
            #expect(seen.contains(binding.action), "\(binding.action)")
        }
        _ = state.handle(.up)
        guard case .help = state.overlay else {
            Issue.record("scrolling closed the help")
            return
        }
        _ = state.handle(.character(" "))
        #expect(state.overlay == nil)
    }

    @Test func tabMovesBetweenTheListAndTheChatAndEscGoesBack() {
        var state = openChat()
        _ = state.handle(.tab)
        #expect(state.focus == .list)
        _ = state.handle(.shiftTab)
        #expect(state.focus == .chat)
        _ = state.handle(.escape)
        #expect(state.focus == .list)
        var nothingOpen = Fixtures.state()
        _ = nothingOpen.handle(.tab)
        #expect(nothingOpen.focus == .list)
    }

    @Test func altDigitOpensTheNthConversation() {
        var state = Fixtures.state(conversations: threeConversations())
        #expect(state.handle(.alt("3")) == [.openConversation(three, around: nil)])
        #expect(state.handle(.alt("9")) == [])
        #expect(state.openConversation == three)
    }

    @Test func ctrlNAndCtrlPStepThroughConversations() {
        var state = openChat()
        #expect(state.handle(.control("n")) == [.openConversation(two, around: nil)])
        #expect(state.handle(.control("n")) == [.openConversation(three, around: nil)])
        #expect(state.handle(.control("n")) == [])
        #expect(state.handle(.control("p")) == [.openConversation(two, around: nil)])
    }

    @Test func ctrlUOpensTheNextUnreadConversation() {
        var state = openChat()
        #expect(state.handle(.control("u")) == [.openConversation(two, around: nil)])
        _ = state.apply(
            .history(two, Fixtures.messages(2, count: 1, from: Fixtures.carol), hasOlder: false, focus: nil))
        #expect(state.handle(.control("u")) == [])
        #expect(state.notice == "No unread conversations")
    }

    @Test func ctrlUWithNoConversationsSaysSo() {
        var state = Fixtures.state(conversations: [])
        #expect(state.handle(.control("u")) == [])
        #expect(state.notice == "No unread conversations")
        #expect(state.handle(.control("n")) == [])
        #expect(state.handle(.alt("1")) == [])
    }

    @Test func ctrlRResyncsAndSaysSo() {
        var state = Fixtures.state()
        #expect(state.handle(.control("r")) == [.resync])
        _ = state.apply(.resynced)
        #expect(state.notice == "Resyncing: clocks re-announced, known peers redialled")
    }

    @Test func archivingHidesTheRowAndMovesTheSelection() {
        var state = Fixtures.state(conversations: threeConversations())
        #expect(
            state.handle(.character("a")) == [.setArchived(one, true), .loadConversations(includeArchived: false)])
        #expect(state.visibleConversations.map(\.id) == [two, three])
        #expect(state.selectedSummary?.id == two)
        _ = state.handle(.character("A"))
        _ = state.handle(.home)
        #expect(state.selectedSummary?.id == one)
        #expect(
            state.handle(.character("a")) == [.setArchived(one, false), .loadConversations(includeArchived: true)])
    }

    @Test func pinningMovesTheRowToTheTop() {
        var state = Fixtures.state(conversations: threeConversations())
        _ = state.handle(.end)
        #expect(state.handle(.character("p")) == [.setPinned(three, true), .loadConversations(includeArchived: false)])
        #expect(state.visibleConversations.first?.id == three)
        #expect(
            state.handle(.character("p")) == [.setPinned(three, false), .loadConversations(includeArchived: false)])
    }

    @Test func uMarksUnreadOrRead() {
        var state = Fixtures.state(conversations: threeConversations())
        #expect(
            state.handle(.character("u")) == [.setMarkedUnread(one, true), .loadConversations(includeArchived: false)])
        #expect(state.summary(one)?.badgeCount == 1)
        #expect(
            state.handle(.character("u")) == [.setMarkedUnread(one, false), .loadConversations(includeArchived: false)])
        _ = state.handle(.down)
        #expect(state.handle(.character("u")) == [.markRead(two), .loadConversations(includeArchived: false)])
        #expect(state.summary(two)?.badgeCount == 0)
    }

    @Test func deleteAsksFirstAndOnlyYConfirms() {
        var state = Fixtures.state(conversations: threeConversations())
        #expect(state.handle(.character("d")) == [])
        #expect(Fixtures.render(state).contains("Delete this conversation and its messages from this machine? y/N"))
        #expect(state.handle(.character("n")) == [])
        #expect(state.overlay == nil)
        _ = state.handle(.character("d"))
        #expect(state.handle(.enter) == [])
        _ = state.handle(.character("d"))
        #expect(state.handle(.character("Y")) == [.delete(one), .loadConversations(includeArchived: false)])
        #expect(state.summary(one) == nil)
    }

    @Test func deletingTheOpenConversationClosesTheChat() {
        var state = openChat()
        _ = state.handle(.escape)
        _ = state.handle(.character("d"))
        _ = state.handle(.character("y"))
        #expect(state.openConversation == nil)
        #expect(state.focus == .list)
    }

    @Test func eachConversationKeepsItsDraft() {
        var state = openChat()
        _ = state.type("unfinished")
        _ = state.handle(.control("n"))
        #expect(state.input.isEmpty)
        _ = state.type("other")
        _ = state.handle(.control("p"))
        #expect(state.input.text == "unfinished")
        _ = state.handle(.control("n"))
        #expect(state.input.text == "other")
    }
}
