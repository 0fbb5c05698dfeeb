import ConfabModel

/// One search result: a conversation matched by title or participant name, or a message.
public struct SearchHit: Sendable, Equatable, Codable {
    public let conversation: ConversationSummary
    /// The matching message; nil when the conversation matched by title or name.
    public let message: ChatMessage?
    /// The matching text with the match between « and ».
    public let snippet: String?

    public init(conversation: ConversationSummary, message: ChatMessage?, snippet: String?) {
        self.conversation = conversation
        self.message = message
        self.snippet = snippet
    }
}
