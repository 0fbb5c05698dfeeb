import ConfabModel
import Foundation

/// What a running node reports to watchers (the control socket's event stream).
public enum NodeEvent: Sendable, Equatable {
    /// A message was stored: received, or written here.
    case message(ChatMessage)
    /// One of my messages changed status.
    case status(conversation: ConversationID, seq: UInt64, status: DeliveryStatus)
    case peerOnline(PeerPresence)
    case peerOffline(PeerPresence)
    /// The store changed in a way no other event describes: a flag, a conversation started
    /// or deleted, or (nil) a write by another process. Front ends read it again.
    case changed(ConversationID?)
}
