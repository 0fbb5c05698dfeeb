import ConfabModel
import Foundation

/// What a running node reports to watchers (the control socket's event stream).
public enum NodeEvent: Sendable, Equatable {
    /// A message was stored: received, or written here.
    case message(ChatMessage)
    /// A message's author edited it: the message as it reads now.
    case edited(ChatMessage)
    /// A message's author deleted it for everyone: the message as it is now (no text).
    case deleted(ChatMessage)
    /// Someone added a reaction to a message or took one back: the message as it reads
    /// now (its reactions), and the change.
    case reaction(ChatMessage, ReactionChange)
    /// The members changed: the history's system line for the change (Protocol.md §4.8).
    case members(ChatMessage)
    /// One of my messages changed status.
    case status(conversation: ConversationID, seq: UInt64, status: DeliveryStatus)
    case peerOnline(PeerPresence)
    case peerOffline(PeerPresence)
    /// A peer started or stopped typing in one of my conversations (never stored).
    case typing(TypingEvent)
    /// The store changed in a way no other event describes: a flag, a conversation started
    /// or deleted, or (nil) a write by another process. Front ends read it again.
    case changed(ConversationID?)
    /// A file's content moved on here: more of it held, complete, or stopped (`problem`).
    case file(FileInfo)
    /// How much of a file of mine (the file message at `seq`) a recipient's own node holds,
    /// as it told this node in a session; `complete` once it holds it whole.
    case filePeer(conversation: ConversationID, seq: UInt64, peer: NodeID, held: UInt64, complete: Bool)
    /// This node's link offer moved on: the words to compare, linked, or failed.
    case link(LinkProgress)
}
