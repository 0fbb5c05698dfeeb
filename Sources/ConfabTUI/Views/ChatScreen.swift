import ConfabModel
import Foundation

/// Draws the whole screen from the state: the list and the chat side by side (or one of
/// them on a narrow terminal), the status bar, and an overlay on top.
public enum ChatScreen {
    static let noChatHint = "Select a conversation with ↑/↓ and Enter"
    static let loading = "Loading…"

    public static func render(_ state: ChatState, now: Date, calendar: Calendar, colors: Bool) -> Frame {
        let layout = state.layout
        let context = RenderContext(now: now, calendar: calendar, colors: colors)
        var frame = Frame(width: layout.width, height: layout.height)
        let body = layout.bodyHeight
        switch layout.mode {
        case .wide:
            frame.place(
                listLines(state, width: layout.listWidth, context: context), top: 0, left: 0, width: layout.listWidth)
            let divider = Array(repeating: ScreenLine("│", Palette.rule), count: body)
            frame.place(divider, top: 0, left: layout.listWidth, width: 1)
            let chat = chatLines(state, context: context)
            frame.place(chat.lines, top: 0, left: layout.chatLeft, width: layout.chatWidth)
            frame.cursor = chat.cursor.map { Frame.Cursor(row: $0.row, column: layout.chatLeft + $0.column) }
        case .narrow:
            if state.focus == .chat, state.chat != nil {
                let chat = chatLines(state, context: context)
                frame.place(chat.lines, top: 0, left: 0, width: layout.width)
                frame.cursor = chat.cursor.map { Frame.Cursor(row: $0.row, column: $0.column) }
            } else {
                frame.place(
                    listLines(state, width: layout.width, context: context), top: 0, left: 0, width: layout.width)
            }
        }
        if layout.height > 0 {
            frame.set(layout.height - 1, statusBar(state, width: layout.width).line(), fill: Palette.statusBar)
        }
        if let overlay = state.overlay {
            frame.cursor = draw(overlay, state: state, on: &frame, context: context)
        }
        return colors ? frame : withoutColors(frame)
    }

    private static func listLines(_ state: ChatState, width: Int, context: RenderContext) -> [ScreenLine] {
        ConversationListView(
            conversations: state.visibleConversations, selected: state.selectedSummary?.id, top: state.listTop,
            isFocused: state.focus == .list && state.overlay == nil, showsArchived: state.showArchived, width: width,
            height: state.layout.bodyHeight, context: context
        ).lines()
    }

    /// The chat pane, and where its cursor goes (when the input has the focus).
    private static func chatLines(
        _ state: ChatState, context: RenderContext
    )
        -> (lines: [ScreenLine], cursor: (row: Int, column: Int)?)
    {
        let layout = state.layout
        let width = layout.chatWidth
        let body = layout.bodyHeight
        guard let chat = state.chat else {
            let hint = state.conversations.isEmpty ? "Press Ctrl+K to start a conversation" : noChatHint
            return (MessageListView.centeredMessage(hint, rows: body, width: width), nil)
        }
        let summary = state.summary(chat.id)
        var lines = ChatHeaderView(
            conversation: chat.id, summary: summary, peers: state.peers, verified: state.verified,
            typing: state.typingNames(in: chat.id), width: width
        ).lines()
        let rows = state.messageRows
        if !chat.isLoaded {
            lines += MessageListView.centeredMessage(loading, rows: rows, width: width)
        } else if chat.messages.isEmpty {
            lines += MessageListView.centeredMessage(sayHi(summary), rows: rows, width: width)
        } else {
            let list = state.messageList(chat, context: context)
            let total = list.measure().total
            let scroll = min(chat.scroll, max(0, total - rows))
            let window = max(0, total - scroll - rows)..<(total - scroll)
            lines += MessageListView.visible(
                list.content(window: window), rows: rows, scroll: scroll, newBelow: chat.newBelow, width: width,
                context: context)
        }
        let isFocused = state.focus == .chat && state.overlay == nil
        let banner = chat.replyingTo.map {
            "↪ Replying to " + Preview.line($0.quoteLine, mine: false, limit: 50) + " · Esc cancels"
        }
        let input = InputBarView(buffer: state.input, width: width, isFocused: isFocused, banner: banner).render()
        let inputTop = lines.count
        lines += input.lines
        lines = ConversationListView.exactly(body, lines, width: width)
        return (lines, input.cursor.map { (inputTop + $0.row, $0.column) })
    }

    /// An empty thread invites the first message: "Say hi to Bob".
    static func sayHi(_ summary: ConversationSummary?) -> String {
        let names = summary?.participants.map { TextSanitizer.line($0.name) } ?? []
        switch names.count {
        case 0: return "No messages yet"
        case 1: return "Say hi to \(names[0])"
        default: return "Say hi to \(names.dropLast().joined(separator: ", ")) and \(names[names.count - 1])"
        }
    }

    private static func statusBar(_ state: ChatState, width: Int) -> StatusBarView {
        let hints: [String]
        switch state.focus {
        case .list:
            hints = [
                "? help · Ctrl+K new · / search · D devices · q quit", "? help · Ctrl+K new · / search · q quit",
                "? help · q quit", "? help",
            ]
        case .chat:
            hints = [
                "Enter send · Alt+Enter new line · Ctrl+E select (reply, react, edit) · Esc list · ^C quit",
                "Enter send · Alt+Enter new line · Ctrl+E select · Esc list · ^C quit",
                "Enter send · Alt+Enter new line · Esc list · Ctrl+C quit", "Esc list · ^C quit", "Esc list",
            ]
        }
        return StatusBarView(
            myName: state.myName, onlinePeers: state.onlinePeerCount, syncReceived: state.syncReceived,
            syncExpected: state.syncExpected, notice: state.notice, hints: hints, width: width)
    }

    /// Draws the overlay and returns where the cursor goes (a field in it, or hidden).
    private static func draw(
        _ overlay: Overlay, state: ChatState, on frame: inout Frame, context: RenderContext
    )
        -> Frame.Cursor?
    {
        let width = frame.width
        let height = frame.height
        switch overlay {
        case .help(let top):
            HelpOverlay(top: top, screenWidth: width, screenHeight: height).box().draw(on: &frame)
            return nil
        case .search(let panel):
            let search = SearchOverlay(panel: panel, screenWidth: width, screenHeight: height, context: context).box()
            search.box.draw(on: &frame)
            return search.cursor
        case .newConversation(let panel):
            let dialog = NewConversationOverlay(
                panel: panel, candidates: state.newConversationCandidates, screenWidth: width, screenHeight: height
            ).box()
            dialog.box.draw(on: &frame)
            return dialog.cursor
        case .confirmDelete(let id):
            let subject = state.summary(id).map(ConversationRow.name) ?? id.shortHex
            ConfirmDialog(
                title: "Delete", subject: subject, question: ConfirmDialog.deleteQuestion, screenWidth: width,
                screenHeight: height
            ).box().draw(on: &frame)
            return nil
        case .confirmRemoveDevice(let device, _):
            ConfirmDialog(
                title: "Remove device", subject: device.fingerprint,
                question: ConfirmDialog.removeDeviceQuestion(device), screenWidth: width, screenHeight: height
            ).box().draw(on: &frame)
            return nil
        case .devices(let panel):
            DevicesOverlay(panel: panel, screenWidth: width, screenHeight: height, context: context).box().draw(
                on: &frame)
            return nil
        case .react(let panel):
            let picker = ReactOverlay(panel: panel, screenWidth: width, screenHeight: height).box()
            picker.box.draw(on: &frame)
            return picker.cursor
        case .confirmUnsend(let id, let seq):
            let text = state.chat?.messages.first { $0.conversationID == id && $0.isMine && $0.seq == seq }?.text
            ConfirmDialog(
                title: "Delete for everyone", subject: text.map(TextSanitizer.line) ?? "#\(seq)",
                question: ConfirmDialog.unsendQuestion, screenWidth: width, screenHeight: height
            ).box().draw(on: &frame)
            return nil
        }
    }

    /// `NO_COLOR`: every colour goes; bold, dim, reverse and underline stay.
    private static func withoutColors(_ frame: Frame) -> Frame {
        var plain = frame
        for (row, line) in frame.lines.enumerated() {
            plain.set(row, line.restyled { $0 = $0.withoutColor })
        }
        return plain
    }
}
