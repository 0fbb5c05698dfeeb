import ConfabModel
import Testing

@testable import ConfabTUI

@Suite struct ConversationRowTests {
    func row(_ summary: ConversationSummary, width: Int = 40, selected: Bool = false) -> [ScreenLine] {
        ConversationRow(
            summary: summary, width: width, isSelected: selected, isFocused: true, context: Fixtures.context
        ).lines()
    }

    func text(_ summary: ConversationSummary, width: Int = 40) -> [String] {
        row(summary, width: width).map(\.text)
    }

    @Test func showsTheOtherParticipantsAndTheirLastMessage() {
        let lines = text(Fixtures.summary(1, with: [(Fixtures.bob, "Bob"), (Fixtures.carol, "Carol")], last: "hi"))
        #expect(lines[0].hasPrefix("   Bob, Carol"))
        #expect(lines[1].hasPrefix("   hi"))
    }

    @Test func aTitledThreadShowsItsTitleWithATopicBadge() {
        let lines = text(Fixtures.summary(1, title: "Weekend plans"))
        #expect(lines[0].hasPrefix("   # Weekend plans"))
    }

    /// A room's title carries its own `#`: one badge, not two.
    @Test func aRoomShowsOneBadge() {
        let lines = text(Fixtures.summary(1, title: "#general"))
        #expect(lines[0].hasPrefix("   #general"))
        #expect(!lines[0].contains("# #"))
        var state = Fixtures.state(conversations: [Fixtures.summary(1, title: "#general")], open: 1)
        _ = state.apply(.conversations([Fixtures.summary(1, title: "#general")]))
        #expect(!Fixtures.render(state).contains("# #general"))
    }

    @Test func myLastMessageStartsWithYouAndCarriesItsStatus() {
        let lines = text(Fixtures.summary(1, last: "on my way", mine: true, status: .delivered))
        #expect(lines[1].hasPrefix("   You: on my way"))
        #expect(lines[1].hasSuffix("✓✓ "))
        let sending = text(Fixtures.summary(1, last: "x", mine: true, status: .sending))
        #expect(sending[1].hasSuffix("… "))
    }

    @Test func aLongPreviewIsOneLineEndingInAnEllipsis() {
        let long = "this is a very long message\nwith a second line that does not fit in the row"
        let lines = text(Fixtures.summary(1, last: long), width: 30)
        #expect(lines[1] == "   this is a very long messag…")
        #expect(lines.allSatisfy { DisplayWidth.of($0) == 30 })
    }

    @Test func timestampsAreRelativeToNow() {
        let cases: [(Double, String)] = [
            (0.5, "9:30 AM"), (24, "Yesterday"), (24 * 6, "Monday"),
        ]
        for (hours, expected) in cases {
            let lines = text(Fixtures.summary(1, at: Fixtures.ago(hours: hours)))
            #expect(lines[0].hasSuffix(" \(expected) "), "\(hours) hours ago")
        }
        let october = text(Fixtures.summary(1, at: Fixtures.date("2026-10-15T12:00:00Z")))
        #expect(october[0].hasSuffix(" Oct 15 "))
    }

    @Test func unreadShowsACountBadgeAndABoldName() {
        let lines = row(Fixtures.summary(1, unread: 12))
        #expect(lines[1].text.hasSuffix(" 12  "))
        #expect(lines[0].spans.contains { $0.text == "Bob" && $0.style.bold })
        let read = row(Fixtures.summary(1))
        #expect(!read[0].spans.contains { $0.text == "Bob" && $0.style.bold })
        #expect(!read[1].text.contains("12"))
    }

    @Test func hugeUnreadCountsAreCapped() {
        #expect(text(Fixtures.summary(1, unread: 12_345))[1].hasSuffix(" 999+  "))
    }

    @Test func aThreadWithNobodyElseIsNamedOnlyYou() {
        #expect(text(Fixtures.summary(1, with: []))[0].hasPrefix("   Only you"))
    }

    @Test func markedUnreadShowsABadgeOfOne() {
        #expect(text(Fixtures.summary(1, markedUnread: true))[1].hasSuffix(" 1  "))
    }

    @Test func pinnedRowsCarryThePinMark() {
        #expect(text(Fixtures.summary(1, pinned: true))[0].hasPrefix(ConversationRow.pinMark))
        #expect(!text(Fixtures.summary(1))[0].contains(ConversationRow.pinMark))
    }

    @Test func mutedAndArchivedAreMarked() {
        #expect(text(Fixtures.summary(1, muted: true))[0].contains("Bob (muted)"))
        #expect(text(Fixtures.summary(1, archived: true))[0].contains("Bob (archived)"))
    }

    @Test func aSelectedRowIsReversedOnBothLines() {
        let lines = row(Fixtures.summary(1), selected: true)
        #expect(lines.allSatisfy { line in line.spans.allSatisfy(\.style.reverse) })
    }

    @Test func controlCharactersInNamesAndPreviewsAreNotDrawn() {
        let summary = Fixtures.summary(
            1, with: [(Fixtures.bob, "Bo\u{1B}[2Jb")], last: "line one\nline\u{1B}]0;pwned\u{07} two")
        let lines = text(summary, width: 50)
        #expect(lines[0].contains("Bob"))
        #expect(lines[1].hasPrefix("   line one line two"))
        #expect(!lines.joined().contains("\u{1B}"))
    }

    @Test func wideNamesKeepTheRowExactlyTheWidth() {
        let summary = Fixtures.summary(
            1, with: [(Fixtures.bob, "山田太郎さんと鈴木花子さんと佐藤さん")], last: "😀😀😀 絵文字のテストです、長いメッセージ",
            unread: 2)
        for width in [20, 27, 33, 40] {
            #expect(row(summary, width: width).allSatisfy { $0.width == width }, "width \(width)")
        }
    }

    @Test func aConversationWithNoMessagesSaysSo() {
        #expect(text(Fixtures.summary(1, last: nil))[1].hasPrefix("   " + ConversationRow.noMessages))
    }
}

@Suite struct ConversationListTests {
    @Test func pinnedComeFirstThenNewestActivity() {
        let state = Fixtures.state(conversations: [
            Fixtures.summary(1, with: [(Fixtures.bob, "Old")], at: Fixtures.ago(hours: 48)),
            Fixtures.summary(2, with: [(Fixtures.bob, "New")], at: Fixtures.ago(hours: 1)),
            Fixtures.summary(3, with: [(Fixtures.bob, "Pinned")], at: Fixtures.ago(hours: 100), pinned: true),
        ])
        let names = state.visibleConversations.map(\.displayName)
        #expect(names == ["Pinned", "New", "Old"])
        let frame = Fixtures.render(state)
        let rows = ["Pinned", "New", "Old"].map { name in
            frame.text.firstIndex { $0.contains("# \(name)") || $0.contains(" \(name) ") }
        }
        #expect(rows.compactMap { $0 } == rows.compactMap { $0 }.sorted())
        #expect(rows.allSatisfy { $0 != nil })
    }

    @Test func archivedAreHiddenUntilShown() {
        var state = Fixtures.state(conversations: [
            Fixtures.summary(1, with: [(Fixtures.bob, "Bob")]),
            Fixtures.summary(2, with: [(Fixtures.carol, "Carol")], archived: true),
        ])
        #expect(!Fixtures.render(state).contains("Carol"))
        #expect(state.handle(.character("A")) == [.loadConversations(includeArchived: true)])
        let frame = Fixtures.render(state)
        #expect(frame.contains("Carol (archived)"))
        #expect(frame.contains("All conversations"))
        #expect(state.handle(.escape) == [.loadConversations(includeArchived: false)])
        #expect(!Fixtures.render(state).contains("Carol"))
    }

    @Test func anEmptyListSaysHowToStart() {
        let frame = Fixtures.render(Fixtures.state(conversations: []))
        #expect(frame.contains(ConversationListView.emptyTitle))
        #expect(frame.contains("Ctrl+K"))
        #expect(frame.contains("confab new NAME"))
    }

    @Test func theListScrollsToKeepTheSelectionInView() {
        let many = (1...30).map {
            Fixtures.summary(UInt8($0), with: [(Fixtures.bob, "Person \($0)")], at: Fixtures.ago(hours: Double($0)))
        }
        var state = Fixtures.state(height: 12, conversations: many)
        for _ in 0..<20 { _ = state.handle(.down) }
        let frame = Fixtures.render(state)
        #expect(frame.contains("Person 21"))
        #expect(!frame.contains("Person 1 "))
        #expect(frame.lines.allSatisfy { $0.width == 100 })
    }
}
