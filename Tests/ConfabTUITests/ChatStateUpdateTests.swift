import ConfabModel
import ConfabStore
import Testing

@testable import ConfabTUI

@Suite struct ChatStateUpdateTests {
    let one = Fixtures.conversation(1)
    let two = Fixtures.conversation(2)

    func twoConversations(unread: Int = 0, mutedTwo: Bool = false) -> [ConversationSummary] {
        [
            Fixtures.summary(1, with: [(Fixtures.bob, "Bob")], at: Fixtures.ago(hours: 1), unread: unread),
            Fixtures.summary(2, with: [(Fixtures.carol, "Carol")], at: Fixtures.ago(hours: 2), muted: mutedTwo),
        ]
    }

    func fromBob(_ seq: UInt64, _ text: String = "news", minutes: Double = 1) -> ChatMessage {
        Fixtures.message(1, seq: seq, text: text, at: Fixtures.now.addingTimeInterval(minutes * 60))
    }

    @Test func startingWithTheLastOpenChatShowsIt() {
        var state = ChatState(me: Fixtures.me, myName: "Alice", lastOpen: one, width: 100, height: 30)
        state.calendar = Fixtures.utc
        #expect(state.openConversation == one)
        #expect(state.focus == .chat)
        _ = state.apply(.identity(name: "Alice", id: Fixtures.me))
        _ = state.apply(.conversations(twoConversations(unread: 2)))
        let effects = state.apply(.history(one, Fixtures.messages(1, count: 3), hasOlder: false, focus: nil))
        #expect(effects == [.markRead(one)])
        #expect(Fixtures.render(state).contains("message 3"))
    }

    @Test func openingAnUnreadChatMarksItReadOnce() {
        var state = Fixtures.state(conversations: twoConversations(unread: 2))
        _ = state.handle(.enter)
        #expect(
            state.apply(.history(one, Fixtures.messages(1, count: 2), hasOlder: false, focus: nil)) == [.markRead(one)])
        #expect(state.summary(one)?.badgeCount == 0)
        #expect(state.handle(.pageUp) == [])
        #expect(state.handle(.pageDown) == [])
    }

    @Test func aReloadThatCountsUnreadInTheShownChatMarksItRead() {
        var state = Fixtures.state(conversations: twoConversations(), open: 1, history: Fixtures.messages(1, count: 2))
        #expect(state.apply(.conversations(twoConversations(unread: 1))) == [.markRead(one)])
        #expect(state.apply(.conversations(twoConversations())) == [])
        let flagged = [Fixtures.summary(1, markedUnread: true)]
        #expect(state.apply(.conversations(flagged)) == [])
        #expect(state.summary(one)?.badgeCount == 1)
    }

    @Test func openingAReadChatSendsNoReceipt() {
        var state = Fixtures.state(conversations: twoConversations())
        _ = state.handle(.enter)
        #expect(state.apply(.history(one, Fixtures.messages(1, count: 2), hasOlder: false, focus: nil)) == [])
    }

    @Test func aNewMessageWhilePinnedToTheBottomIsMarkedRead() {
        var state = Fixtures.state(conversations: twoConversations(), open: 1, history: Fixtures.messages(1, count: 2))
        #expect(state.apply(.message(fromBob(3))) == [.markRead(one)])
        #expect(state.summary(one)?.unreadCount == 0)
        let mine = Fixtures.message(1, seq: 1, from: Fixtures.me, text: "mine", at: Fixtures.ago(hours: -1))
        #expect(state.apply(.message(mine)) == [])
    }

    @Test func aNewMessageWhileScrolledUpWaitsUntilTheBottomIsSeen() {
        var state = Fixtures.state(
            height: 16, conversations: twoConversations(), open: 1, history: Fixtures.messages(1, count: 20))
        _ = state.handle(.pageUp)
        #expect(state.chat?.scroll ?? 0 > 0)
        #expect(state.apply(.message(fromBob(21))) == [])
        #expect(state.chat?.newBelow == 1)
        #expect(state.summary(one)?.unreadCount == 1)
        var effects: [ChatEffect] = []
        for _ in 0..<10 { effects += state.handle(.pageDown) }
        #expect(effects == [.markRead(one)])
        #expect(state.chat?.newBelow == 0)
    }

    @Test func theViewStaysStillWhenMessagesArriveBelowIt() {
        var state = Fixtures.state(
            height: 16, conversations: twoConversations(), open: 1, history: Fixtures.messages(1, count: 20))
        _ = state.handle(.pageUp)
        let chatLeft = state.layout.chatLeft
        let before = Fixtures.render(state).pane(from: chatLeft)
        _ = state.apply(.message(fromBob(21, "one\ntwo\nthree")))
        let after = Fixtures.render(state).pane(from: chatLeft)
        // Everything but the indicator row stays where it was.
        #expect(Array(after.prefix(10)) == Array(before.prefix(10)))
    }

    @Test func notifyOnlyForOthersMessagesOutOfSightAndNotMuted() {
        var state = Fixtures.state(
            conversations: twoConversations(mutedTwo: false), open: 1, history: Fixtures.messages(1, count: 2))
        let inOther = Fixtures.message(2, seq: 5, from: Fixtures.carol, name: "Carol", text: "psst")
        #expect(state.apply(.message(inOther)).contains(.notify(inOther)))
        let inOpen = fromBob(3)
        #expect(!state.apply(.message(inOpen)).contains(.notify(inOpen)))
        let mine = Fixtures.message(2, seq: 6, from: Fixtures.me, text: "mine")
        #expect(!state.apply(.message(mine)).contains(.notify(mine)))

        var muted = Fixtures.state(conversations: twoConversations(mutedTwo: true))
        #expect(!muted.apply(.message(inOther)).contains(.notify(inOther)))

        var narrow = Fixtures.state(
            width: 60, conversations: twoConversations(), open: 1, history: Fixtures.messages(1, count: 2))
        _ = narrow.handle(.escape)
        let unseen = fromBob(3)
        let effects = narrow.apply(.message(unseen))
        #expect(effects == [.notify(unseen)])
        #expect(narrow.handle(.tab) == [.markRead(one)])
    }

    @Test func wideningANarrowScreenShowsTheChatAndReadsIt() {
        var state = Fixtures.state(
            width: 60, conversations: twoConversations(), open: 1, history: Fixtures.messages(1, count: 2))
        _ = state.handle(.escape)
        _ = state.apply(.message(fromBob(3)))
        #expect(state.resize(width: 70, height: 30) == [])
        #expect(state.resize(width: 100, height: 30) == [.markRead(one)])
    }

    @Test func aMessageInAConversationTheListLacksReloadsTheList() {
        var state = Fixtures.state(conversations: twoConversations())
        let invitation = Fixtures.message(9, seq: 1, from: Fixtures.dave, name: "Dave", text: "join us")
        #expect(
            state.apply(.message(invitation)) == [.loadConversations(includeArchived: false), .notify(invitation)])
    }

    @Test func theListIsLiveAsMessagesArrive() {
        var state = Fixtures.state(conversations: twoConversations())
        let message = Fixtures.message(2, seq: 7, from: Fixtures.carol, name: "Carol", text: "line one\nline two")
        _ = state.apply(.message(message))
        #expect(state.visibleConversations.first?.id == two)
        #expect(state.summary(two)?.unreadCount == 1)
        var frame = Fixtures.render(state)
        #expect(frame.text[3].hasPrefix("   line one line two"))
        let mine = Fixtures.message(1, seq: 2, from: Fixtures.me, text: "back to Bob", at: Fixtures.ago(hours: -1))
        _ = state.apply(.message(mine))
        frame = Fixtures.render(state)
        #expect(frame.text[2].contains("Bob"))
        #expect(frame.text[3].hasPrefix("   You: back to Bob"))
        #expect(state.summary(one)?.unreadCount == 0)
    }

    @Test func statusUpdatesTheBubbleAndThePreview() {
        let mine = Fixtures.message(1, seq: 3, from: Fixtures.me, text: "did you get it?", status: .sent)
        var state = Fixtures.state(
            conversations: [Fixtures.summary(1, last: "did you get it?", mine: true, status: .sent)], open: 1,
            history: [mine])
        #expect(state.apply(.status(one, seq: 3, .delivered)) == [])
        #expect(state.chat?.messages.first?.status == .delivered)
        #expect(state.summary(one)?.lastMessage?.status == .delivered)
        let frame = Fixtures.render(state)
        #expect(frame.contains("delivered ✓✓"))
        #expect(frame.text[3].contains("✓✓"))
        #expect(state.apply(.status(one, seq: 2, .read)) == [])
        #expect(state.summary(one)?.lastMessage?.status == .delivered)
    }

    @Test func aStatusForAPreviewOfUnknownSeqAsksTheStore() {
        var state = Fixtures.state(conversations: [Fixtures.summary(1, last: "hi", mine: true, status: .sent)])
        #expect(state.apply(.status(one, seq: 3, .delivered)) == [.loadConversations(includeArchived: false)])
    }

    @Test func scrollingPastTheTopLoadsOlderOnce() {
        let history = Fixtures.messages(1, count: 20)
        var state = Fixtures.state(
            height: 16, conversations: twoConversations(), open: 1, history: history, hasOlder: true)
        var effects: [ChatEffect] = []
        for _ in 0..<20 { effects += state.handle(.pageUp) }
        #expect(effects == [.loadOlder(one, before: history[0].orderKey)])
        let chatLeft = state.layout.chatLeft
        let before = Fixtures.render(state).pane(from: chatLeft)
        // From yesterday, so today's separator stays at the top of the view.
        let older = (1...5).map { i in
            Fixtures.message(1, seq: UInt64(100 + i), text: "older \(i)", at: Fixtures.ago(hours: 30), order: UInt64(i))
        }
        #expect(state.apply(.olderHistory(one, older, hasOlder: false)) == [])
        #expect(Fixtures.render(state).pane(from: chatLeft) == before)
        effects = []
        for _ in 0..<20 { effects += state.handle(.pageUp) }
        #expect(effects == [])
        #expect(Fixtures.render(state).pane(from: chatLeft).joined().contains("older 1"))
    }

    @Test func aMessageArrivingWhileTheChatLoadsIsNotLost() {
        var state = Fixtures.state(conversations: twoConversations())
        _ = state.handle(.enter)
        let early = fromBob(3, "arrived early")
        let stale = Fixtures.message(1, seq: 9, text: "before the page", at: Fixtures.ago(hours: 50), order: 1)
        _ = state.apply(.message(early))
        _ = state.apply(.message(stale))
        let page = Fixtures.messages(1, count: 2)
        #expect(state.apply(.history(one, page, hasOlder: true, focus: nil)) == [.markRead(one)])
        #expect(state.chat?.messages.map(\.text) == ["message 1", "message 2", "arrived early"])
    }

    @Test func historyForAnotherConversationIsIgnored() {
        var state = Fixtures.state(conversations: twoConversations(), open: 1, history: Fixtures.messages(1, count: 2))
        _ = state.apply(.history(two, [Fixtures.message(2, seq: 1, text: "stray")], hasOlder: false, focus: nil))
        #expect(state.chat?.messages.map(\.text) == ["message 1", "message 2"])
    }

    @Test func resizingKeepsTheScrollWithinTheContent() {
        var state = Fixtures.state(
            width: 100, height: 40, conversations: twoConversations(), open: 1, history: Fixtures.messages(1, count: 30)
        )
        for _ in 0..<3 { _ = state.handle(.pageUp) }
        _ = state.resize(width: 50, height: 10)
        let small = state.chat!.scroll
        #expect(small <= state.maxScroll(state.chat!))
        _ = state.resize(width: 200, height: 100)
        #expect(state.chat!.scroll <= state.maxScroll(state.chat!))
        #expect(Fixtures.render(state).lines.allSatisfy { $0.width == 200 })
    }
}

@Suite struct SearchFlowTests {
    @Test func typingSearchesAndEnterOpensTheHitAtItsMessage() {
        let conversations = [
            Fixtures.summary(1, with: [(Fixtures.bob, "Bob")]),
            Fixtures.summary(2, title: "Hiking", with: [(Fixtures.carol, "Carol")], at: Fixtures.ago(hours: 3)),
        ]
        var state = Fixtures.state(conversations: conversations)
        #expect(state.handle(.character("/")) == [])
        #expect(state.type("hik") == [.search("h"), .search("hi"), .search("hik")])
        #expect(Fixtures.render(state).contains(SearchOverlay.searching))

        let history = Fixtures.messages(2, count: 30, from: Fixtures.carol)
        let target = history[4]
        let hits = [
            SearchHit(conversation: conversations[1], message: nil, snippet: "Hiking"),
            SearchHit(conversation: conversations[1], message: target, snippet: "a «hik»e on Saturday"),
        ]
        _ = state.apply(.searchResults(query: "hi", []))
        #expect(Fixtures.render(state).contains(SearchOverlay.searching))
        _ = state.apply(.searchResults(query: "hik", hits))
        let frame = Fixtures.render(state)
        #expect(frame.contains("a hike on Saturday"))
        #expect(frame.lines.allSatisfy { $0.width == 100 })

        _ = state.handle(.down)
        #expect(state.handle(.enter) == [.openConversation(Fixtures.conversation(2), around: target.id)])
        #expect(state.overlay == nil)
        #expect(state.focus == .chat)

        // The page around the hit: the chat shows it highlighted and is not at the bottom,
        // so nothing is marked read yet.
        let effects = state.apply(.history(Fixtures.conversation(2), history, hasOlder: false, focus: target.id))
        #expect(effects == [])
        let chat = Fixtures.render(state).pane(from: state.layout.chatLeft).joined()
        #expect(chat.contains("message 5"))
        #expect(!chat.contains("message 30"))
    }

    @Test func escClosesAndAnEmptyQuerySearchesNothing() {
        var state = Fixtures.state()
        _ = state.handle(.character("/"))
        #expect(state.handle(.character(" ")) == [])
        #expect(Fixtures.render(state).contains(SearchOverlay.hint))
        _ = state.handle(.escape)
        #expect(state.overlay == nil)
    }
}

@Suite struct NewConversationFlowTests {
    func state() -> ChatState {
        var state = Fixtures.state()
        _ = state.apply(
            .peers(
                [
                    Fixtures.peer(Fixtures.carol, "Carol", online: false), Fixtures.peer(Fixtures.bob, "Bob"),
                    Fixtures.peer(Fixtures.dave, "Dave"), Fixtures.peer(Fixtures.me, "Alice"),
                ], verified: []))
        return state
    }

    @Test func pickPeopleNameTheThreadAndCreate() {
        var state = state()
        _ = state.handle(.control("k"))
        var frame = Fixtures.render(state)
        #expect(frame.contains("[ ] Bob  online"))
        #expect(frame.contains("[ ] Carol  offline"))
        #expect(!frame.contains("Alice  online"))
        // Online first, then by name: Bob, Dave, Carol.
        _ = state.handle(.character(" "))
        _ = state.handle(.down)
        _ = state.handle(.down)
        _ = state.handle(.character(" "))
        frame = Fixtures.render(state)
        #expect(frame.contains("[x] Bob"))
        #expect(frame.contains("[x] Carol"))
        _ = state.handle(.tab)
        _ = state.type("Trip ")
        #expect(Fixtures.render(state).cursor != nil)
        #expect(
            state.handle(.enter) == [
                .createConversation(participants: [Fixtures.bob, Fixtures.carol], title: "Trip")
            ])
        #expect(state.overlay == nil)
        let created = Fixtures.conversation(7)
        #expect(
            state.apply(.created(created)) == [
                .openConversation(created, around: nil), .loadConversations(includeArchived: false),
            ])
        #expect(state.openConversation == created)
    }

    @Test func nobodyChosenCreatesNothing() {
        var state = state()
        _ = state.handle(.control("k"))
        #expect(state.handle(.enter) == [])
        #expect(state.notice != nil)
        _ = state.handle(.character(" "))
        _ = state.handle(.character(" "))
        #expect(state.handle(.enter) == [])
        _ = state.handle(.escape)
        #expect(state.overlay == nil)
    }

    @Test func withNoPeersItSaysHowToAddOne() {
        var state = Fixtures.state()
        _ = state.handle(.control("k"))
        #expect(Fixtures.render(state).contains("confab peers add KEY --name NAME"))
    }
}
