/// Names one message of a conversation for a reply or a reaction (Protocol.md §4.5): its
/// author and the seq in that author's log. Within a conversation the pair is unique and
/// never reused; the conversation itself is the entry's own, so a reference can never reach
/// into another conversation.
public struct MessageRef: Sendable, Hashable, Codable {
    public let author: NodeID
    public let seq: UInt64

    public init(author: NodeID, seq: UInt64) {
        self.author = author
        self.seq = seq
    }

    /// The message id as `history --json` prints it: `<conversation>/<author>/<seq>`.
    public func id(in conversation: ConversationID) -> String { "\(conversation.hex)/\(author.hex)/\(seq)" }
}

extension ChatMessage {
    /// How a reply or a reaction names this message.
    public var ref: MessageRef { MessageRef(author: author, seq: seq) }
}
