import ConfabModel
import Foundation

extension ChatState {
    /// Lines of text in the input bar (1 to 5).
    var inputLines: Int { InputBarView.textLines(input, width: layout.chatWidth) }

    /// Rows the messages get between the header and the input bar.
    var messageRows: Int { layout.messageRows(inputLines: inputLines) }

    func isGroup(_ id: ConversationID) -> Bool {
        (summary(id)?.participants.count ?? 1) > 1
    }

    func messageList(_ chat: OpenChat, context: RenderContext) -> MessageListView {
        MessageListView(
            messages: chat.messages, width: layout.chatWidth, isGroup: isGroup(chat.id), highlight: chat.highlight,
            context: context, metrics: chat.metrics, fileRecipients: chat.fileRecipients,
            recipientCount: summary(chat.id)?.participants.count ?? 1)
    }

    /// Measures the open chat's new messages for the current width, once.
    mutating func refreshMetrics() {
        guard var chat, chat.isLoaded else { return }
        let parameters = MessageMetrics.Parameters(
            width: layout.chatWidth, isGroup: isGroup(chat.id), calendar: calendar)
        chat.metrics.update(chat.messages, for: parameters)
        self.chat = chat
    }

    /// Where the open chat's lines fall. The clock does not matter here: `now` changes the
    /// words of date separators, never how many lines there are.
    func measure(_ chat: OpenChat) -> (total: Int, ranges: [Range<Int>]) {
        let context = RenderContext(now: Date(timeIntervalSince1970: 0), calendar: calendar, colors: false)
        return messageList(chat, context: context).measure()
    }

    func maxScroll(_ chat: OpenChat) -> Int {
        max(0, measure(chat).total - messageRows)
    }

    /// Scrolls the chat `lines` up (negative: down). Reaching the top of what is loaded
    /// asks for the page before it, once at a time.
    mutating func scrollChat(by lines: Int) -> [ChatEffect] {
        guard var chat, chat.isLoaded else { return [] }
        let top = maxScroll(chat)
        chat.scroll = min(max(0, chat.scroll + lines), top)
        var effects: [ChatEffect] = []
        if lines > 0, chat.scroll == top, chat.hasOlder, !chat.isLoadingOlder, let first = chat.messages.first {
            chat.isLoadingOlder = true
            effects.append(.loadOlder(chat.id, before: first.orderKey))
        }
        if chat.scroll == 0 { chat.newBelow = 0 }
        self.chat = chat
        return effects
    }

    /// A page: the message rows less one, so a line of context stays on screen.
    var pageLines: Int { max(1, messageRows - 1) }

    /// Puts `message` near the top of the view (a search hit), or pins to the bottom.
    mutating func scroll(to message: String?) {
        guard var chat else { return }
        let measured = measure(chat)
        if let message, let index = chat.messages.firstIndex(where: { $0.id == message }) {
            let top = max(0, measured.ranges[index].lowerBound - 2)
            chat.scroll = min(max(0, measured.total - top - messageRows), max(0, measured.total - messageRows))
        } else {
            chat.scroll = 0
        }
        self.chat = chat
    }

    /// After any change: keep the selection on screen and the scroll within the content,
    /// and mark the chat read if its newest message is in view.
    mutating func settle() -> [ChatEffect] {
        keepSelectionVisible()
        refreshMetrics()
        guard var chat, chat.isLoaded else { return [] }
        chat.scroll = min(chat.scroll, maxScroll(chat))
        if chat.scroll == 0 { chat.newBelow = 0 }
        self.chat = chat
        return markReadIfSeen()
    }

    /// Reading means seeing the newest message: the chat is on screen and pinned to the
    /// bottom. Scrolled up, nothing is marked; with nothing new, nothing is sent again.
    mutating func markReadIfSeen() -> [ChatEffect] {
        guard var chat, chat.isLoaded, chat.needsRead, chat.isPinnedToBottom, chatIsVisible else { return [] }
        chat.needsRead = false
        self.chat = chat
        update(chat.id) {
            $0.unreadCount = 0
            $0.isMarkedUnread = false
        }
        return [.markRead(chat.id)]
    }

    mutating func keepSelectionVisible() {
        let capacity = ConversationListView.capacity(height: layout.bodyHeight)
        let count = visibleConversations.count
        if let index = selectedIndex {
            if index < listTop { listTop = index }
            if index >= listTop + capacity { listTop = index - capacity + 1 }
        }
        listTop = min(max(0, listTop), max(0, count - capacity))
    }
}
