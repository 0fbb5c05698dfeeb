import ConfabModel
import Foundation

extension ConversationSummary {
    /// The fields the chat changes locally between reloads (a message arrived, a flag
    /// was toggled), so the list stays live without asking the store.
    struct Changes {
        var lastActivityAt: Date
        var lastMessage: LastMessage?
        var unreadCount: Int
        var isMarkedUnread: Bool
        var isPinned: Bool
        var isArchived: Bool
        var isMuted: Bool
    }

    func changing(_ change: (inout Changes) -> Void) -> ConversationSummary {
        var changes = Changes(
            lastActivityAt: lastActivityAt, lastMessage: lastMessage, unreadCount: unreadCount,
            isMarkedUnread: isMarkedUnread, isPinned: isPinned, isArchived: isArchived, isMuted: isMuted)
        change(&changes)
        var changed = ConversationSummary(
            id: id, title: title, participants: participants, createdAt: createdAt,
            lastActivityAt: changes.lastActivityAt, lastMessage: changes.lastMessage, unreadCount: changes.unreadCount,
            isMarkedUnread: changes.isMarkedUnread, isPinned: changes.isPinned, isArchived: changes.isArchived,
            isMuted: changes.isMuted)
        // What only the store knows stays as it was read.
        changed.forkedAuthors = forkedAuthors
        changed.keyProblem = keyProblem
        changed.isFormerMember = isFormerMember
        return changed
    }

    /// The list order: pinned first, then newest activity, then id so ties never swap.
    static func listOrder(_ a: ConversationSummary, _ b: ConversationSummary) -> Bool {
        if a.isPinned != b.isPinned { return a.isPinned }
        if a.lastActivityAt != b.lastActivityAt { return a.lastActivityAt > b.lastActivityAt }
        return a.id < b.id
    }
}

extension ConversationSummary.LastMessage {
    init(_ message: ChatMessage) {
        self.init(
            author: message.author, isMine: message.isMine,
            text: message.text.map { message.file != nil && !message.isDeleted ? "📎 " + $0 : $0 }
                ?? (message.isDeleted ? ChatMessage.deletedText : MessageBubble.undecryptable),
            sentAt: message.sentAt, status: message.status)
    }

    func with(status: DeliveryStatus) -> Self {
        Self(author: author, isMine: isMine, text: text, sentAt: sentAt, status: status)
    }
}

extension ChatMessage {
    func with(status: DeliveryStatus) -> ChatMessage {
        var message = self
        message.status = status
        return message
    }
}
