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
    public let status: DeliveryStatus?

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

    /// A stable id for the message: `<conversation>/<author>/<seq>`.
    public var id: String { "\(conversationID.hex)/\(author.hex)/\(seq)" }
}
