import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

@testable import ConfabTUI

/// Small builders for the chat's tests: ids from fixed bytes, a fixed clock and a UTC
/// calendar so times and separators never depend on where or when tests run.
enum Fixtures {
    static let me = node(1)
    static let bob = node(2)
    static let carol = node(3)
    static let dave = node(4)

    static func node(_ n: UInt8) -> NodeID {
        NodeID(bytes: [UInt8](repeating: n, count: NodeID.length))!
    }

    static func conversation(_ n: UInt8) -> ConversationID {
        ConversationID(bytes: [UInt8](repeating: n, count: ConversationID.length))!
    }

    static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    /// Sunday, 22 November 2026, 10:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_795_341_600)

    /// `hours` before `now` (negative: after).
    static func ago(hours: Double) -> Date {
        now.addingTimeInterval(-hours * 3600)
    }

    static func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text)!
    }

    static func summary(
        _ n: UInt8, title: String? = nil, with people: [(NodeID, String)] = [(bob, "Bob")], last: String? = "hi",
        mine: Bool = false, at: Date = now, unread: Int = 0, markedUnread: Bool = false, pinned: Bool = false,
        archived: Bool = false, muted: Bool = false, status: DeliveryStatus? = nil
    ) -> ConversationSummary {
        ConversationSummary(
            id: conversation(n), title: title,
            participants: people.map { ConversationSummary.Participant(id: $0.0, name: $0.1) },
            createdAt: at.addingTimeInterval(-86_400 * 30), lastActivityAt: at,
            lastMessage: last.map {
                .init(
                    author: mine ? me : people.first?.0 ?? me, isMine: mine, text: $0, sentAt: at,
                    status: mine ? (status ?? .sent) : nil)
            },
            unreadCount: unread, isMarkedUnread: markedUnread, isPinned: pinned, isArchived: archived, isMuted: muted)
    }

    static func message(
        _ conversationNumber: UInt8, seq: UInt64, from author: NodeID = bob, name: String = "Bob",
        text: String? = "hello", at: Date = now, status: DeliveryStatus? = nil, order: UInt64? = nil
    ) -> ChatMessage {
        let isMine = author == me
        return ChatMessage(
            conversationID: conversation(conversationNumber), author: author, authorName: isMine ? "You" : name,
            seq: seq, isMine: isMine, text: text, sentAt: at,
            orderKey: DisplayOrderKey(
                clockSum: order ?? seq * 10, timestamp: Int64(at.timeIntervalSince1970 * 1000), author: author,
                seq: seq),
            status: isMine ? (status ?? .sent) : nil)
    }

    /// `count` messages from Bob, a minute apart, ending at `now`.
    static func messages(_ conversationNumber: UInt8, count: Int, from author: NodeID = bob) -> [ChatMessage] {
        (1..<count + 1).map { i in
            message(
                conversationNumber, seq: UInt64(i), from: author, text: "message \(i)",
                at: now.addingTimeInterval(Double(i - count) * 60))
        }
    }

    static func peer(_ id: NodeID, _ name: String, online: Bool = true) -> PeerPresence {
        PeerPresence(
            id: id, name: name, online: online, connected: online, address: nil, lastSeen: nil, role: .person)
    }

    /// A state with the list loaded and, if `open` is given, that chat open with `history`.
    static func state(
        width: Int = 100, height: Int = 30, conversations: [ConversationSummary] = [summary(1)],
        open: UInt8? = nil, history: [ChatMessage] = [], hasOlder: Bool = false
    ) -> ChatState {
        var state = ChatState(
            me: me, myName: "Alice", lastOpen: open.map(conversation), width: width, height: height)
        state.calendar = utc
        _ = state.apply(.identity(name: "Alice", id: me))
        _ = state.apply(.conversations(conversations))
        if let open {
            _ = state.apply(.history(conversation(open), history, hasOlder: hasOlder, focus: nil))
        }
        return state
    }

    static func render(_ state: ChatState, colors: Bool = true) -> Frame {
        ChatScreen.render(state, now: now, calendar: utc, colors: colors)
    }

    static var context: RenderContext { RenderContext(now: now, calendar: utc, colors: true) }
}

extension Frame {
    var joined: String { text.joined(separator: "\n") }

    func contains(_ text: String) -> Bool { joined.contains(text) }

    /// The rows from `column` on (for frames without wide characters): the chat pane.
    func pane(from column: Int) -> [String] { text.map { String($0.dropFirst(column)) } }
}

extension ChatState {
    /// Types `text` key by key.
    mutating func type(_ text: String) -> [ChatEffect] {
        text.flatMap { handle(.character($0)) }
    }
}
