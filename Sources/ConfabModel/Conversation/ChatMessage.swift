import Foundation

/// A message as shown in a chat, in display order.
public struct ChatMessage: Sendable, Equatable, Codable {
    public let conversationID: ConversationID
    public let author: NodeID
    public let authorName: String
    public let seq: UInt64
    public let isMine: Bool
    /// nil when the body could not be decrypted (shown as such, never dropped).
    public let text: String?
    public let sentAt: Date
    public let orderKey: DisplayOrderKey
    /// Set only for my own messages.
    public var status: DeliveryStatus?
    /// When the text shown was written by an edit of its author (nil: never edited).
    public var editedAt: Date?
    /// Deleted for everyone by its author: `text` is nil and shows as "message deleted".
    public var isDeleted: Bool = false
    /// The texts the message had before its current one, oldest first (the original, then
    /// each edit but the latest); empty when never edited or deleted.
    public var edits: [Version] = []
    /// The message this one replies to, as it reads now (nil: not a reply).
    public var replyTo: Quote?
    /// The people the text mentions (members of the conversation), in text order; their
    /// `@name`s in `text` are this node's names for them.
    public var mentions: [NamedPerson] = []
    /// Whether the text mentions me.
    public var mentionsMe = false
    /// The emoji under the message, most used first.
    public var reactions: [ReactionGroup] = []
    /// Set on a system line rather than a message: a change of the conversation's members
    /// (Protocol.md §4.8), written by `author`. Such a line has no text.
    public var membership: MembershipNote?
    /// Set on a system line of a member's device list changing (`DeviceNote`), this node's
    /// own line: `author` is the person, `seq` the list entry's.
    public var device: DeviceNote?
    /// Set for a file message: the file, and how much of it is here. `text` is its name.
    public var file: FileInfo?

    /// A text the message had, and when its author wrote it.
    public struct Version: Sendable, Equatable, Codable {
        public let text: String
        public let writtenAt: Date

        public init(text: String, writtenAt: Date) {
            self.text = text
            self.writtenAt = writtenAt
        }
    }

    public init(
        conversationID: ConversationID, author: NodeID, authorName: String, seq: UInt64, isMine: Bool,
        text: String?, sentAt: Date, orderKey: DisplayOrderKey, status: DeliveryStatus?
    ) {
        self.conversationID = conversationID
        self.author = author
        self.authorName = authorName
        self.seq = seq
        self.isMine = isMine
        self.text = text
        self.sentAt = sentAt
        self.orderKey = orderKey
        self.status = status
    }

    /// What every front end shows in place of a message deleted for everyone.
    public static let deletedText = "message deleted"

    /// A system line's sentence ("Alice added Carol"); nil for a message.
    /// A system line (a change of members or of a member's devices), not a message.
    public var isSystemLine: Bool { membership != nil || device != nil }

    public var systemLine: String? { membership?.sentence(by: authorName) ?? device?.sentence(by: authorName) }

    /// A stable id for the message: `<conversation>/<author>/<seq>`; a device line's is
    /// `<conversation>/device/<person>/<list seq>`, apart from the person's own entries.
    public var id: String {
        if let device { return "\(conversationID.hex)/device/\(device.person.hex)/\(device.listSeq)" }
        return "\(conversationID.hex)/\(author.hex)/\(seq)"
    }
}
