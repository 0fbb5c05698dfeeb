import ConfabModel
import Testing

@testable import ConfabTUI

@Suite struct ChatScreenTests {
    func conversations() -> [ConversationSummary] {
        [
            Fixtures.summary(1, with: [(Fixtures.bob, "Bob")], last: "hello", unread: 2),
            Fixtures.summary(
                2, title: "週末の予定 🎉", with: [(Fixtures.carol, "キャロル"), (Fixtures.dave, "Dave")],
                last: "絵文字 😀👍🏽 と日本語", at: Fixtures.ago(hours: 30)),
        ]
    }

    func history() -> [ChatMessage] {
        [
            Fixtures.message(
                2, seq: 1, from: Fixtures.carol, name: "キャロル", text: "こんにちは！週末はどうですか？", at: Fixtures.ago(hours: 26)),
            Fixtures.message(2, seq: 1, from: Fixtures.me, text: "🎉🎉 いいですね 👍🏽\nlet's go", at: Fixtures.ago(hours: 1)),
            Fixtures.message(2, seq: 1, from: Fixtures.dave, name: "Dave", text: nil, at: Fixtures.ago(hours: 0.5)),
        ]
    }

    @Test func wideTerminalsShowTheListBesideTheChat() {
        let state = Fixtures.state(width: 100, height: 24, conversations: conversations(), open: 2, history: history())
        let frame = Fixtures.render(state)
        let layout = Layout(width: 100, height: 24)
        #expect(layout.mode == .wide)
        #expect(frame.text[0].contains("Conversations"))
        #expect(frame.text[0].contains("週末の予定"))
        #expect(frame.text.dropLast().allSatisfy { Array($0).count > layout.listWidth })
        #expect(frame.contains("こんにちは"))
        #expect(frame.contains("Bob"))
    }

    @Test func theHeaderKeepsItsNameWhenTheOpenChatLeavesTheList() {
        var state = Fixtures.state(width: 100, height: 24, conversations: conversations(), open: 2, history: history())
        // Archived while open: the list no longer holds it, the chat stays with its name.
        _ = state.apply(.conversations([conversations()[0]]))
        let frame = Fixtures.render(state)
        #expect(frame.text[0].contains("週末の予定"))
        #expect(!frame.text[0].contains("Conversation 02"))
    }

    @Test func narrowTerminalsShowOnePaneAtATime() {
        var state = Fixtures.state(width: 60, height: 20, conversations: conversations(), open: 2, history: history())
        #expect(state.layout.mode == .narrow)
        var frame = Fixtures.render(state)
        #expect(!frame.contains("Conversations"))
        #expect(frame.contains("こんにちは"))
        _ = state.handle(.escape)
        frame = Fixtures.render(state)
        #expect(frame.text[0].contains("Conversations"))
        #expect(!frame.contains("こんにちは"))
        _ = state.handle(.tab)
        #expect(Fixtures.render(state).contains("こんにちは"))
    }

    @Test func everyLineIsExactlyTheWidthWithWideCharacters() {
        var state = Fixtures.state(width: 100, height: 24, conversations: conversations(), open: 2, history: history())
        _ = state.apply(.peers([Fixtures.peer(Fixtures.carol, "キャロル")], verified: [Fixtures.carol]))
        _ = state.type("入力も日本語 😀 で")
        for (width, height) in [(100, 24), (81, 12), (80, 30), (79, 24), (40, 10), (33, 8), (120, 40)] {
            _ = state.resize(width: width, height: height)
            for focus in [ChatState.Focus.chat, .list] {
                state.focus = focus
                let frame = Fixtures.render(state)
                #expect(frame.lines.count == height)
                #expect(frame.lines.allSatisfy { $0.width == width }, "\(width)x\(height) \(focus)")
            }
        }
        for key in [Key.character("?"), .control("k")] {
            state.focus = .list
            _ = state.handle(key)
            let frame = Fixtures.render(state)
            #expect(frame.lines.allSatisfy { $0.width == 120 }, "\(key)")
            _ = state.handle(.escape)
        }
    }

    @Test func anEmptyThreadSaysHi() {
        let state = Fixtures.state(conversations: [Fixtures.summary(1, last: nil)], open: 1, history: [])
        #expect(Fixtures.render(state).contains("Say hi to Bob"))
        let group = Fixtures.summary(2, with: [(Fixtures.bob, "Bob"), (Fixtures.carol, "Carol")], last: nil)
        #expect(ChatScreen.sayHi(group) == "Say hi to Bob and Carol")
    }

    @Test func theChatSaysLoadingUntilItsHistoryArrives() {
        var state = Fixtures.state(conversations: [Fixtures.summary(1)])
        _ = state.handle(.enter)
        #expect(Fixtures.render(state).contains(ChatScreen.loading))
    }

    @Test func theHeaderShowsPresenceAndVerification() {
        var state = Fixtures.state(conversations: [Fixtures.summary(1)], open: 1, history: [])
        #expect(Fixtures.render(state).text[0].contains("Bob · offline"))
        _ = state.apply(.peers([Fixtures.peer(Fixtures.bob, "Bob")], verified: [Fixtures.bob]))
        #expect(Fixtures.render(state).text[0].contains("Bob ✔ verified · online"))
    }

    /// Protocol.md §12.1: what a peer's older Confab costs is said where it is felt.
    @Test func theHeaderSaysWhenAPersonRunsAnOlderConfab() {
        var state = Fixtures.state(width: 200, conversations: [Fixtures.summary(1)], open: 1, history: [])
        #expect(!Fixtures.render(state).text[0].contains("older Confab"))
        var bob = Fixtures.peer(Fixtures.bob, "Bob")
        bob.protocolVersion = 1
        bob.oldestProtocolVersion = 1
        _ = state.apply(.peers([bob], verified: []))
        #expect(Fixtures.render(state).text[0].contains("⚠ Bob runs an older Confab (protocol 1)"))
    }

    @Test func theHeaderWarnsOfAForkedAuthorAndAKeyThatDoesNotOpen() {
        var summary = Fixtures.summary(1)
        summary.forkedAuthors = [Fixtures.bob]
        let forked = Fixtures.state(width: 120, conversations: [summary], open: 1, history: [])
        #expect(Fixtures.render(forked).text[0].contains("⚠ Bob signed two histories"))
        summary.forkedAuthors = []
        summary.keyProblem = true
        let unreadable = Fixtures.state(width: 120, conversations: [summary], open: 1, history: [])
        #expect(Fixtures.render(unreadable).text[0].contains("⚠ cannot be read here"))
    }

    @Test func theStatusBarSaysOnlineOrOffline() {
        var state = Fixtures.state()
        var bar = Fixtures.render(state).text.last!
        #expect(bar.contains(StatusBarView.offline))
        _ = state.apply(
            .peers(
                [
                    Fixtures.peer(Fixtures.bob, "Bob"), Fixtures.peer(Fixtures.carol, "Carol"),
                    Fixtures.peer(Fixtures.dave, "Dave"), Fixtures.peer(Fixtures.node(9), "Eve", online: false),
                ],
                verified: []))
        bar = Fixtures.render(state).text.last!
        #expect(bar.contains("Alice · Online · 3 peers"))
        #expect(bar.contains("? help"))
    }

    @Test func keyHintsShortenOnNarrowScreens() {
        var state = Fixtures.state(width: 60, height: 20, conversations: [Fixtures.summary(1)], open: 1)
        _ = state.apply(.peers([Fixtures.peer(Fixtures.bob, "Bob")], verified: []))
        #expect(Fixtures.render(state).text.last!.hasSuffix(" Esc list · ^C quit "))
        _ = state.resize(width: 120, height: 20)
        #expect(Fixtures.render(state).text.last!.contains("Alt+Enter new line"))
    }

    @Test func theStatusBarShowsSyncProgress() {
        var state = Fixtures.state()
        _ = state.apply(.syncProgress(received: 1234, expected: 5000))
        #expect(Fixtures.render(state).text.last!.contains("Syncing 1,234 of 5,000"))
        _ = state.apply(.syncProgress(received: 5000, expected: 0))
        #expect(!Fixtures.render(state).text.last!.contains("Syncing"))
    }

    @Test func noticesAppearUntilTheNextKey() {
        var state = Fixtures.state()
        _ = state.apply(.notice("Could not reach \u{1B}[31mBob"))
        #expect(Fixtures.render(state).text.last!.contains("Could not reach Bob"))
        _ = state.handle(.down)
        #expect(!Fixtures.render(state).text.last!.contains("Could not reach"))
    }

    @Test func withoutColoursSelectionAndUnreadStayVisible() {
        let state = Fixtures.state(conversations: conversations(), open: 2, history: history())
        let frame = Fixtures.render(state, colors: false)
        let spans = frame.lines.flatMap(\.spans)
        #expect(spans.allSatisfy { $0.style.foreground == nil && $0.style.background == nil })
        #expect(spans.contains { $0.text.contains("2") && $0.style.reverse && $0.style.bold })
        #expect(spans.contains { $0.text.contains("週末の予定") && $0.style.reverse })
        let colored = Fixtures.render(state, colors: true).lines.flatMap(\.spans)
        #expect(colored.contains { $0.style.foreground != nil || $0.style.background != nil })
    }

    @Test func theCursorIsInTheInputWhenTheChatHasTheFocus() {
        var state = Fixtures.state(width: 100, height: 20, conversations: [Fixtures.summary(1)], open: 1)
        _ = state.type("hey")
        let frame = Fixtures.render(state)
        let layout = state.layout
        #expect(frame.cursor == Frame.Cursor(row: 18, column: layout.chatLeft + 2 + 3))
        _ = state.handle(.escape)
        #expect(Fixtures.render(state).cursor == nil)
    }

    @Test func theNewMessagesIndicatorShowsWhenScrolledUp() {
        var state = Fixtures.state(
            height: 16, conversations: [Fixtures.summary(1)], open: 1, history: Fixtures.messages(1, count: 20))
        _ = state.handle(.pageUp)
        _ = state.apply(.message(Fixtures.message(1, seq: 21, text: "fresh", at: Fixtures.ago(hours: -0.1))))
        _ = state.apply(.message(Fixtures.message(1, seq: 22, text: "fresher", at: Fixtures.ago(hours: -0.2))))
        let chat = state.layout.chatLeft
        var pane = Fixtures.render(state).pane(from: chat).joined()
        #expect(pane.contains("2 new messages ↓"))
        #expect(!pane.contains("fresher"))
        for _ in 0..<10 { _ = state.handle(.pageDown) }
        pane = Fixtures.render(state).pane(from: chat).joined()
        #expect(!pane.contains("new messages ↓"))
        #expect(pane.contains("fresher"))
    }

    @Test func tinyScreensStillGiveWholeFrames() {
        var state = Fixtures.state(conversations: conversations(), open: 2, history: history())
        _ = state.type("typed")
        let sizes = [(0, 0), (1, 1), (5, 3), (12, 2), (30, 4), (79, 5), (80, 3)]
        let keys: [Key?] = [nil, .character("?"), .control("k"), .character("d"), .character("/")]
        for (width, height) in sizes {
            _ = state.resize(width: width, height: height)
            for key in keys {
                state.focus = .list
                state.overlay = nil
                if let key { _ = state.handle(key) }
                let frame = Fixtures.render(state)
                #expect(frame.lines.count == height)
                #expect(frame.lines.allSatisfy { $0.width == width }, "\(width)x\(height) \(String(describing: key))")
            }
        }
    }
}
