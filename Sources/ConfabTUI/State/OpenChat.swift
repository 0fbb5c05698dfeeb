import ConfabModel

/// The conversation in the chat pane: the loaded page of messages and where the view is.
struct OpenChat: Sendable {
    let id: ConversationID
    /// Oldest first, in display order.
    var messages: [ChatMessage] = []
    /// False until the first page of history arrives.
    var isLoaded = false
    var hasOlder = false
    /// A `loadOlder` is out; asking again before it answers would load the same page twice.
    var isLoadingOlder = false
    /// Content lines hidden below the view; 0 means pinned to the newest message.
    var scroll = 0
    /// Messages that arrived below the view while scrolled up.
    var newBelow = 0
    /// The message a search opened the chat at, shown highlighted.
    var highlight: String?
    /// Selecting a message to act on (Ctrl+E): the selected one is `highlight`.
    var isSelecting = false
    /// The message the next one sent answers (r on a selected message); Esc drops it.
    var replyingTo: ChatMessage?
    /// The seq of my message whose new text the input bar holds (Enter saves the edit).
    var editing: UInt64?
    /// What was typed before an edit began, put back when it ends.
    var draftBeforeEdit: String?
    /// Messages arrived (or the chat was opened unread) that have not been marked read.
    var needsRead = false
    var metrics = MessageMetrics()
    /// How far recipients got with my files, by message id, as their nodes said.
    var fileRecipients: [String: FileRecipients] = [:]
    /// Messages that arrived while the first page was being loaded; the page may have
    /// been read from the store before they were written.
    var arrivedWhileLoading: [ChatMessage] = []
    /// The conversation's row as last seen, for the header when the list no longer holds
    /// it (archived while open, or opened from a search hit in the archive).
    var summary: ConversationSummary?

    init(id: ConversationID, highlight: String? = nil) {
        self.id = id
        self.highlight = highlight
    }

    var isPinnedToBottom: Bool { scroll == 0 }
}

extension OpenChat {
    /// Replies quoting `original` show it as it reads now (edited, deleted, or arrived).
    mutating func updateQuotes(of original: ChatMessage) {
        for index in messages.indices {
            guard let quote = messages[index].replyTo, quote.ref == original.ref else { continue }
            messages[index].replyTo = quote.updated(with: original)
            metrics.forget(messages[index])
        }
    }
}
