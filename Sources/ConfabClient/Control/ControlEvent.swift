import ConfabModel
import ConfabStore
import Foundation

/// One event of a `watch` stream as it travels and as `confab watch --json` prints it
/// (Protocol.md §13). Shapes only ever gain fields.
public struct ControlEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case message
        /// A message's author edited it; `message` is how it reads now.
        case edited
        /// A message's author deleted it for everyone; `message` has no text.
        case deleted
        /// Someone reacted to a message or took a reaction back: `message` is the message
        /// with its reactions now, `reaction` the change.
        case reaction
        /// The members changed; `message` is the history's system line for it.
        case members
        case status
        case peerOnline = "peer_online"
        case peerOffline = "peer_offline"
        /// Something in the store changed that no other event describes (a flag, a
        /// conversation started or deleted, a write by another process): read it again.
        case changed
        /// A peer started (`active`) or stopped typing in `conversation` (Protocol.md §10.2).
        case typing
        /// A file's content moved on here (`file`: how much is held, its state).
        case file
        /// How much of one of my files (`conversation`, `seq`) a recipient's node (`by`) holds
        /// (`held` bytes; `complete` once whole), as that node said itself.
        case filePeer = "file_peer"
        /// This node's link offer moved on (`link`: its id, state, and the words or why not).
        case link
    }

    public let event: Kind
    public var message: JSONOutput.Message?
    public var conversation: ConversationID?
    public var seq: UInt64?
    public var status: DeliveryStatus?
    public var peer: PeerPresence?
    /// Of a `typing` event: who, their name here, and whether they are typing now.
    public var author: NodeID?
    public var authorName: String?
    public var active: Bool?
    public var reaction: JSONOutput.Reaction?
    public var file: JSONOutput.File?
    /// The recipient, for `file_peer`.
    public var by: NodeID?
    public var held: UInt64?
    public var complete: Bool?
    public var link: LinkProgress?

    public init(_ event: NodeEvent) {
        switch event {
        case .message(let message):
            self.event = .message
            self.message = JSONOutput.message(message)
        case .edited(let message):
            self.event = .edited
            self.message = JSONOutput.message(message)
        case .deleted(let message):
            self.event = .deleted
            self.message = JSONOutput.message(message)
        case .reaction(let message, let change):
            self.event = .reaction
            self.message = JSONOutput.message(message)
            self.reaction = JSONOutput.reaction(change)
        case .members(let line):
            self.event = .members
            self.message = JSONOutput.message(line)
        case .status(let conversation, let seq, let status):
            self.event = .status
            self.conversation = conversation
            self.seq = seq
            self.status = status
        case .peerOnline(let peer):
            self.event = .peerOnline
            self.peer = peer
        case .peerOffline(let peer):
            self.event = .peerOffline
            self.peer = peer
        case .changed(let conversation):
            self.event = .changed
            self.conversation = conversation
        case .typing(let typing):
            self.event = .typing
            self.conversation = typing.conversation
            self.author = typing.peer
            self.authorName = typing.name
            self.active = typing.active
        case .file(let file):
            self.event = .file
            self.conversation = file.conversationID
            self.seq = file.seq
            self.file = JSONOutput.file(file)
        case .filePeer(let conversation, let seq, let peer, let held, let complete):
            self.event = .filePeer
            self.conversation = conversation
            self.seq = seq
            self.by = peer
            self.held = held
            self.complete = complete
        case .link(let progress):
            self.event = .link
            self.link = progress
        }
    }

    /// The event as the node reported it. A message is read back from the shared store,
    /// which holds it before the event is sent; nil when it cannot be (deleted meanwhile).
    public func nodeEvent(store: ConfabStore) -> NodeEvent? {
        switch event {
        case .members where message?.device != nil:
            guard let message, let device = message.device,
                let conversation = ConversationID(hex: message.conversation),
                let person = NodeID(hex: device.person),
                let line = try? store.deviceLines(of: person, listSeqs: device.listSeq...device.listSeq).first(where: {
                    $0.conversationID == conversation
                })
            else { return nil }
            return .members(line)
        case .members:
            guard let message, let conversation = ConversationID(hex: message.conversation),
                let author = NodeID(hex: message.author),
                let line = try? store.membershipLine(conversation, author: author, seq: message.seq)
            else { return nil }
            return .members(line)
        case .message, .edited, .deleted, .reaction:
            guard let message, let conversation = ConversationID(hex: message.conversation),
                let author = NodeID(hex: message.author),
                let stored = try? store.message(conversation, author: author, seq: message.seq)
            else { return nil }
            switch event {
            case .edited: return .edited(stored)
            case .deleted: return .deleted(stored)
            case .reaction:
                guard let reaction, let reactor = NodeID(hex: reaction.reactor) else { return nil }
                return .reaction(
                    stored,
                    ReactionChange(
                        reactor: reactor, reactorName: reaction.reactorName, emoji: reaction.emoji,
                        removed: reaction.removed))
            default: return .message(stored)
            }
        case .status:
            guard let conversation, let seq, let status else { return nil }
            return .status(conversation: conversation, seq: seq, status: status)
        case .peerOnline: return peer.map { .peerOnline($0) }
        case .peerOffline: return peer.map { .peerOffline($0) }
        case .changed: return .changed(conversation)
        case .typing:
            guard let conversation, let author, let active else { return nil }
            return .typing(
                TypingEvent(
                    conversation: conversation, peer: author, name: authorName ?? author.shortHex, active: active))
        case .file:
            guard let conversation, let seq, let author = file.flatMap({ NodeID(hex: $0.author) }) else { return nil }
            return (try? store.files(in: conversation))?.first { $0.author == author && $0.seq == seq }.map {
                .file($0)
            }
        case .filePeer:
            guard let conversation, let seq, let by, let held else { return nil }
            return .filePeer(conversation: conversation, seq: seq, peer: by, held: held, complete: complete ?? false)
        case .link: return link.map { .link($0) }
        }
    }
}

extension NodeEvent {
    /// Whether a watcher of `conversation` wants this event.
    public func concerns(_ conversation: ConversationID) -> Bool {
        switch self {
        case .message(let message), .edited(let message), .deleted(let message), .reaction(let message, _),
            .members(let message):
            message.conversationID == conversation
        case .status(let id, _, _): id == conversation
        case .changed(let id): id == nil || id == conversation
        case .typing(let typing): typing.conversation == conversation
        case .file(let file): file.conversationID == conversation
        case .filePeer(let id, _, _, _, _): id == conversation
        case .peerOnline, .peerOffline, .link: true
        }
    }
}

extension JSONOutput.Message: Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        a.id == b.id && a.text == b.text && a.status == b.status && a.editedAt == b.editedAt
            && a.deleted == b.deleted && a.replyTo == b.replyTo && a.reactions == b.reactions && a.file == b.file
    }
}
