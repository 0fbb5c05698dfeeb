import ConfabModel
import Foundation
import Testing

@Suite("Preview")
struct PreviewTests {
    @Test(arguments: [
        ("hello\nworld", "hello world"),
        ("  lots \t of\n\n\nspace  ", "lots of space"),
        ("line one\r\nline two", "line one line two"),
        ("\n\n", ""),
    ])
    func collapsesWhitespace(input: String, expected: String) {
        #expect(Preview.line(input, mine: false) == expected)
    }

    @Test func marksMyOwnMessages() {
        #expect(Preview.line("on my way", mine: true) == "You: on my way")
        #expect(Preview.line("on\nmy way", mine: true) == "You: on my way")
    }

    @Test func cutsWithEllipsisAtTheLimit() {
        let exact = String(repeating: "a", count: 60)
        #expect(Preview.line(exact, mine: false) == exact)
        let long = String(repeating: "b", count: 61)
        let cut = Preview.line(long, mine: false)
        #expect(cut == String(repeating: "b", count: 59) + "…")
        #expect(cut.count == 60)
    }

    @Test func prefixCountsTowardTheLimit() {
        let cut = Preview.line(String(repeating: "c", count: 58), mine: true, limit: 20)
        #expect(cut == "You: " + String(repeating: "c", count: 14) + "…")
        #expect(cut.count == 20)
    }

    @Test func countsCharactersNotBytesOrScalars() {
        // Each is one Character built from several scalars; a cut must not split one.
        let text = String(repeating: "👍🏽", count: 12)
        let cut = Preview.line(text, mine: false, limit: 10)
        #expect(cut == String(repeating: "👍🏽", count: 9) + "…")
        #expect(Preview.line("é", mine: false, limit: 10) == "é")
    }

    @Test func summaryUsesPreviewAndDisplayName() {
        let bob = ConversationSummary.Participant(id: nodeID(2), name: "Bob")
        let carol = ConversationSummary.Participant(id: nodeID(3), name: "Carol")
        func summary(title: String?, unread: Int, markedUnread: Bool, last: String?) -> ConversationSummary {
            ConversationSummary(
                id: ConversationID(bytes: [UInt8](repeating: 1, count: 16))!, title: title, participants: [bob, carol],
                createdAt: Date(timeIntervalSince1970: 0), lastActivityAt: Date(timeIntervalSince1970: 0),
                lastMessage: last.map {
                    .init(
                        author: nodeID(1), isMine: true, text: $0, sentAt: Date(timeIntervalSince1970: 0), status: .sent
                    )
                },
                unreadCount: unread, isMarkedUnread: markedUnread, isPinned: false, isArchived: false, isMuted: false)
        }
        #expect(summary(title: nil, unread: 0, markedUnread: false, last: nil).displayName == "Bob, Carol")
        #expect(summary(title: "", unread: 0, markedUnread: false, last: nil).displayName == "Bob, Carol")
        #expect(summary(title: "Trip", unread: 0, markedUnread: false, last: nil).displayName == "Trip")
        #expect(summary(title: nil, unread: 0, markedUnread: false, last: "a\nb").preview == "You: a b")
        #expect(summary(title: nil, unread: 0, markedUnread: false, last: nil).preview == nil)
        #expect(summary(title: nil, unread: 0, markedUnread: false, last: nil).badgeCount == 0)
        #expect(summary(title: nil, unread: 0, markedUnread: true, last: nil).badgeCount == 1)
        #expect(summary(title: nil, unread: 4, markedUnread: true, last: nil).badgeCount == 4)
    }
}
