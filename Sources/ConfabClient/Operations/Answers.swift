import ConfabModel
import ConfabStore

/// What `send_lines` answers: messages stored together have consecutive seqs, so the
/// first and the count name them all (Protocol.md §13).
public struct SentLines: Sendable, Equatable, Codable {
    public let conversation: ConversationID
    public let firstSeq: UInt64
    public let count: Int
    public let status: DeliveryStatus

    /// A request's worth of text: well inside the control line limit however the JSON
    /// escapes it.
    public static let requestBytes = 32 * 1024

    public init(conversation: ConversationID, firstSeq: UInt64, count: Int, status: DeliveryStatus) {
        self.conversation = conversation
        self.firstSeq = firstSeq
        self.count = count
        self.status = status
    }

    /// Nil unless `sent` is a run of consecutive messages of one conversation, as one
    /// transaction writes them.
    public init?(_ sent: [SentMessage]) {
        guard let first = sent.first,
            sent.enumerated().allSatisfy({
                $1.conversation == first.conversation && $1.seq == first.seq + UInt64($0) && $1.status == first.status
            })
        else { return nil }
        conversation = first.conversation
        firstSeq = first.seq
        count = sent.count
        status = first.status
    }

    /// The messages, one by one, as `send` answers each.
    public var messages: [SentMessage] {
        (0..<count).map {
            SentMessage(conversation: conversation, seq: firstSeq + UInt64($0), status: status, created: false)
        }
    }
}

/// A message that was stored.
public struct SentMessage: Sendable, Equatable, Codable {
    public let conversation: ConversationID
    public let seq: UInt64
    public let status: DeliveryStatus
    /// Whether this message started its conversation.
    public let created: Bool

    public init(conversation: ConversationID, seq: UInt64, status: DeliveryStatus, created: Bool) {
        self.conversation = conversation
        self.seq = seq
        self.status = status
        self.created = created
    }
}

/// A members entry that was stored: its seq in my log.
public struct MembershipChange: Sendable, Equatable, Codable {
    public let conversation: ConversationID
    public let seq: UInt64
    public let status: DeliveryStatus

    public init(conversation: ConversationID, seq: UInt64, status: DeliveryStatus) {
        self.conversation = conversation
        self.seq = seq
        self.status = status
    }
}

/// A file message that was stored.
public struct SentFile: Sendable, Equatable, Codable {
    public let conversation: ConversationID
    public let seq: UInt64
    public let file: FileID
    public let name: String
    public let size: UInt64
    public let status: DeliveryStatus
    public let created: Bool

    public init(
        conversation: ConversationID, seq: UInt64, file: FileID, name: String, size: UInt64, status: DeliveryStatus,
        created: Bool
    ) {
        self.conversation = conversation
        self.seq = seq
        self.file = file
        self.name = name
        self.size = size
        self.status = status
        self.created = created
    }
}

/// An edit or a deletion for everyone that was stored: `target` is the seq of the message
/// acted on, `seq` that of the new entry.
public struct MessageAction: Sendable, Equatable, Codable {
    public let conversation: ConversationID
    public let target: UInt64
    public let seq: UInt64
    public let status: DeliveryStatus

    public init(conversation: ConversationID, target: UInt64, seq: UInt64, status: DeliveryStatus) {
        self.conversation = conversation
        self.target = target
        self.seq = seq
        self.status = status
    }
}

/// A reaction that was stored: the message (`target`, its id as `history --json` prints
/// it), the emoji, whether it was taken back, and the seq of the new entry.
public struct ReactionSent: Sendable, Equatable, Codable {
    public let conversation: ConversationID
    public let target: String
    public let emoji: String
    public let removed: Bool
    public let seq: UInt64
    public let status: DeliveryStatus

    public init(
        conversation: ConversationID, target: String, emoji: String, removed: Bool, seq: UInt64,
        status: DeliveryStatus
    ) {
        self.conversation = conversation
        self.target = target
        self.emoji = emoji
        self.removed = removed
        self.seq = seq
        self.status = status
    }
}

/// A conversation that was started, and its first message if there was one.
public struct CreatedConversation: Sendable, Equatable, Codable {
    public let conversation: ConversationID
    public let firstMessageSeq: UInt64?

    public init(conversation: ConversationID, firstMessageSeq: UInt64?) {
        self.conversation = conversation
        self.firstMessageSeq = firstMessageSeq
    }
}
