import ConfabModel
import Testing

@testable import ConfabTUI

@Suite struct MessageListTests {
    func lines(
        _ messages: [ChatMessage], width: Int = 60, group: Bool = false, highlight: String? = nil
    )
        -> [ScreenLine]
    {
        MessageListView(
            messages: messages, width: width, isGroup: group, highlight: highlight, context: Fixtures.context
        ).content().lines.map { $0.fitted(to: width) }
    }

    @Test func theirsSitOnTheLeftAndMineOnTheRightEachWithItsTime() {
        let text = lines([
            Fixtures.message(1, seq: 1, text: "hello Alice", at: Fixtures.ago(hours: 1)),
            Fixtures.message(1, seq: 1, from: Fixtures.me, text: "hi Bob", at: Fixtures.ago(hours: 0.5)),
        ]).map(\.text)
        let theirs = text.firstIndex { $0.contains("hello Alice") }!
        #expect(text[theirs].hasPrefix("  hello Alice"))
        #expect(text[theirs + 1].hasPrefix(" 9:00 AM"))
        let mine = text.firstIndex { $0.contains("hi Bob") }!
        #expect(text[mine].hasSuffix(" hi Bob  "))
        #expect(text[mine + 1].hasSuffix("9:30 AM  sent ✓ "))
    }

    @Test func myMessagesShowEachDeliveryStatus() {
        for (status, words) in [
            (DeliveryStatus.sending, "sending…"), (.sent, "sent ✓"), (.delivered, "delivered ✓✓"), (.read, "read ✓✓"),
        ] {
            let text = lines([Fixtures.message(1, seq: 1, from: Fixtures.me, text: "x", status: status)]).map(\.text)
            #expect(text.last?.hasSuffix(words + " ") == true, "\(status)")
        }
    }

    @Test func dateSeparatorsMarkEachNewDay() {
        let text = lines([
            Fixtures.message(1, seq: 1, text: "a", at: Fixtures.date("2026-11-16T09:00:00Z")),
            Fixtures.message(1, seq: 2, text: "b", at: Fixtures.date("2026-11-16T10:00:00Z")),
            Fixtures.message(1, seq: 3, text: "c", at: Fixtures.date("2026-11-21T09:00:00Z")),
            Fixtures.message(1, seq: 4, text: "d", at: Fixtures.date("2026-11-22T08:00:00Z")),
        ]).map(\.text)
        let separators = text.filter { $0.hasPrefix("─") }
        #expect(separators.count == 3)
        #expect(separators[0].contains(" Monday, Nov 16 "))
        #expect(separators[1].contains(" Yesterday "))
        #expect(separators[2].contains(" Today "))
        #expect(text.firstIndex(of: separators[1])! > text.firstIndex { $0.contains(" b ") }!)
    }

    @Test func longTextWrapsInsideTheBubbleAndNewlinesStartNewLines() {
        let text = lines(
            [Fixtures.message(1, seq: 1, text: "first line\nsecond line which is rather long and must wrap")],
            width: 30
        ).map(\.text)
        #expect(text.contains { $0.hasPrefix("  first line ") })
        #expect(text.contains { $0.hasPrefix("  second line which is ") })
        // Bubbles take three quarters of 30 columns: 20 for text between the padding.
        #expect(text.contains { $0.hasPrefix("  rather long and must ") })
        #expect(text.contains { $0.hasPrefix("  wrap ") })
    }

    @Test func groupChatsNameTheAuthorOfTheirMessagesOnly() {
        let messages = [
            Fixtures.message(1, seq: 1, from: Fixtures.carol, name: "Carol", text: "hey"),
            Fixtures.message(1, seq: 1, from: Fixtures.me, text: "yo"),
        ]
        let group = lines(messages, group: true).map(\.text)
        #expect(group.contains { $0.hasPrefix(" Carol") })
        #expect(!group.contains { $0.contains("You") })
        #expect(!lines(messages, group: false).map(\.text).contains { $0.contains("Carol") })
    }

    @Test func aMessageThatCouldNotBeDecryptedIsShownAsSuch() {
        let text = lines([Fixtures.message(1, seq: 1, text: nil)]).map(\.text)
        #expect(text.contains { $0.contains(MessageBubble.undecryptable) })
    }

    @Test func escapeSequencesInMessagesAreNotDrawn() {
        let text = lines([Fixtures.message(1, seq: 1, text: "\u{1B}[2J\u{1B}[Hgotcha\u{07}")]).map(\.text)
        #expect(text.contains { $0.hasPrefix("  gotcha ") })
        #expect(!text.joined().unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func wideCharactersAndEmojiKeepEveryLineTheWidth() {
        let messages = [
            Fixtures.message(1, seq: 1, text: "日本語のメッセージはとても長いので折り返す必要があります"),
            Fixtures.message(1, seq: 2, from: Fixtures.me, text: "😀🎉👍 emoji 🇯🇵 and 👨‍👩‍👧 families 😀😀😀😀😀😀😀😀😀"),
        ]
        for width in [20, 33, 41, 60] {
            #expect(lines(messages, width: width).allSatisfy { $0.width == width }, "width \(width)")
        }
    }

    @Test func measuringAgreesWithDrawing() {
        let messages =
            Fixtures.messages(1, count: 6) + [
                Fixtures.message(1, seq: 9, text: "x\ny\nz", at: Fixtures.ago(hours: -1)),
                Fixtures.message(1, seq: 10, text: nil, at: Fixtures.ago(hours: -30)),
            ]
        for group in [false, true] {
            let view = MessageListView(
                messages: messages, width: 40, isGroup: group, highlight: nil, context: Fixtures.context)
            let drawn = view.content()
            #expect(view.measure().total == drawn.lines.count)
            #expect(view.measure().ranges == drawn.ranges)
        }
    }

    @Test func rememberedHeightsAreUsedOnlyForTheWidthTheyWereMeasuredAt() {
        let messages = Fixtures.messages(1, count: 4).map { message in
            Fixtures.message(1, seq: message.seq, text: String(repeating: "word ", count: 12), at: message.sentAt)
        }
        var metrics = MessageMetrics()
        metrics.update(messages, for: .init(width: 30, isGroup: false, calendar: Fixtures.utc))
        for width in [30, 80] {
            let fresh = MessageListView(
                messages: messages, width: width, isGroup: false, highlight: nil, context: Fixtures.context)
            var remembered = fresh
            remembered.metrics = metrics
            #expect(remembered.measure().total == fresh.content().lines.count, "width \(width)")
            #expect(remembered.content().lines.count == fresh.measure().total)
        }
        let narrow = MessageListView(
            messages: messages, width: 30, isGroup: false, highlight: nil, context: Fixtures.context)
        let wide = MessageListView(
            messages: messages, width: 80, isGroup: false, highlight: nil, context: Fixtures.context)
        #expect(narrow.measure().total > wide.measure().total)
    }

    @Test func aSearchHitIsHighlighted() {
        let message = Fixtures.message(1, seq: 1, text: "needle")
        let drawn = lines([message], highlight: message.id)
        let line = drawn.first { $0.text.contains("needle") }!
        #expect(line.spans.contains { $0.text.contains("needle") && $0.style.reverse })
    }

    @Test func visibleRowsHoldToTheBottomAndShowTheNewMessagesIndicator() {
        let view = MessageListView(
            messages: Fixtures.messages(1, count: 10), width: 40, isGroup: false, highlight: nil,
            context: Fixtures.context)
        let content = view.content()
        let pinned = MessageListView.visible(
            content, rows: 6, scroll: 0, newBelow: 0, width: 40, context: Fixtures.context)
        #expect(pinned.count == 6)
        #expect(pinned.map(\.text).contains { $0.contains("message 10") })
        let scrolled = MessageListView.visible(
            content, rows: 6, scroll: 8, newBelow: 3, width: 40, context: Fixtures.context)
        #expect(!scrolled.map(\.text).contains { $0.contains("message 10") })
        #expect(scrolled.last?.text.contains("3 new messages ↓") == true)
        let short = MessageListView.visible(
            content, rows: 100, scroll: 0, newBelow: 0, width: 40, context: Fixtures.context)
        #expect(short.count == 100)
        #expect(short.first?.text.trimmingCharacters(in: .whitespaces).isEmpty == true)
    }
}

@Suite struct InputBarTests {
    func bar(
        _ text: String, width: Int = 22, cursorBack: Int = 0
    ) -> (lines: [String], cursor: (row: Int, column: Int)?) {
        var buffer = InputBuffer(text)
        for _ in 0..<cursorBack { buffer.moveLeft() }
        let rendered = InputBarView(buffer: buffer, width: width, isFocused: true).render()
        return (rendered.lines.map(\.text), rendered.cursor)
    }

    @Test func growsWithTheTextUpToFiveLines() {
        #expect(bar("hi").lines.count == 2)
        #expect(bar("a\nb\nc").lines.count == 4)
        let tall = bar((1...9).map { "line \($0)" }.joined(separator: "\n"))
        #expect(tall.lines.count == 1 + Layout.maxInputLines)
        // The cursor is at the end, so the last five lines are the ones shown.
        #expect(tall.lines.last?.hasPrefix("  line 9") == true)
        #expect(tall.cursor?.row == 5)
    }

    @Test func wrapsLongTextAtTheWidth() {
        let lines = bar(String(repeating: "x", count: 45), width: 22).lines
        #expect(lines.count == 4)
        #expect(lines[1] == "› " + String(repeating: "x", count: 20))
        #expect(lines[3] == "  xxxxx" + String(repeating: " ", count: 15))
    }

    @Test func theCursorFollowsWideCharacters() {
        #expect(bar("日本").cursor?.column == 2 + 4)
        #expect(bar("日本", cursorBack: 1).cursor?.column == 2 + 2)
    }

    @Test func aFullLinePutsTheCursorOnTheNextOne() {
        let full = bar(String(repeating: "x", count: 20), width: 22)
        #expect(full.cursor?.row == 2)
        #expect(full.cursor?.column == 2)
        #expect(InputBarView.textLines(InputBuffer(String(repeating: "x", count: 20)), width: 22) == 2)
    }

    @Test func anEmptyInputShowsAPlaceholder() {
        #expect(bar("").lines[1].hasPrefix("› Message"))
        #expect(bar("").cursor?.column == 2)
    }
}
