import ConfabModel
import ConfabStore

/// What every front end does to conversations — the CLI, the control socket, the
/// full-screen chat and the plain chat all go through this one API. Two implementations:
/// `LocalMessenger` works on this process's store (and tells a node running in this process,
/// if there is one); `AttachedMessenger` asks the `confab up` that serves the data directory
/// over its control socket, which answers with a `LocalMessenger` of its own. Either way
/// every write is stored before the call returns, and a node that runs offers it to peers
/// at once.
public protocol Messenger: Sendable {
    /// Stores a message (a reply to `replyTo`, a message of the same conversation, when
    /// given) and hands it to the network; returns once it is stored.
    func send(_ text: String, to target: MessageTarget, replyTo: MessageRef?) async throws -> SentMessage
    /// Several messages to one conversation, in order, each stored before its
    /// acknowledgement comes back, in as few transactions as the node can (`send --lines`
    /// reading a fast pipe). All or nothing.
    func send(_ texts: [String], to conversation: ConversationID) async throws -> [SentMessage]
    /// Edits my message `seq` in `conversation`: every node then shows `text`, marked
    /// edited (Protocol.md §4.5). Returns once the edit is stored.
    func edit(_ seq: UInt64, in conversation: ConversationID, text: String) async throws -> MessageAction
    /// Deletes my message `seq` in `conversation` for everyone (Protocol.md §4.5).
    func unsend(_ seq: UInt64, in conversation: ConversationID) async throws -> MessageAction
    /// Adds my reaction `emoji` to a message of `conversation`, anyone's, or takes it back
    /// (`removed`) (Protocol.md §4.5). Returns once it is stored.
    func react(
        _ emoji: String, to target: MessageRef, in conversation: ConversationID, removed: Bool
    ) async throws -> ReactionSent
    /// Adds and removes members of a group (Protocol.md §4.8): any member adds, only the
    /// admin removes; `shareHistory` gives the added members the earlier keys.
    func changeMembers(
        of conversation: ConversationID, add: [NodeID], remove: [NodeID], shareHistory: Bool
    ) async throws -> MembershipChange
    /// Leaves a group: nothing written there after reaches this node.
    func leave(_ conversation: ConversationID) async throws -> MembershipChange
    /// Sends a file of this machine (`path`, absolute): encrypted into the store, then its
    /// file message written (Protocol.md §17). `folder` places it in a folder sent as a tree.
    /// Returns once the message is stored; peers fetch the content from then on.
    func sendFile(at path: String, folder: String, to target: MessageTarget) async throws -> SentFile
    /// Fetches a file whatever its size (one over the automatic-download limit waits for this).
    func acceptFile(_ file: FileID) async throws
    /// Starts a conversation (a new thread), with an optional first message.
    func create(with participants: [NodeID], title: String?, firstMessage: String?) async throws -> CreatedConversation
    /// Marks a conversation read (clearing "marked unread") and writes a read receipt if one
    /// is due; returns whether one was written.
    @discardableResult
    func markRead(_ conversation: ConversationID) async throws -> Bool
    /// Changes a flag that stays on this machine (archived, pinned, muted, marked unread).
    func setFlag(_ flag: LocalFlag, _ value: Bool, on conversation: ConversationID) async throws
    /// Deletes a conversation from this machine.
    func delete(_ conversation: ConversationID) async throws
    /// Sets how far this node trusts a peer; a running node closes a newly blocked peer's
    /// session at once and lets an unblocked one back in.
    func setTrust(_ trust: Peer.Trust, for peer: NodeID) async throws
    /// My person is typing in `conversation` (or stopped): the node tells the other
    /// participants connected now, at most every few seconds (Protocol.md §10.2). Nothing is
    /// sent while the typing setting is off or no node runs.
    func typing(_ active: Bool, in conversation: ConversationID) async throws
    /// Re-announces clocks to every peer and redials known peers now.
    func resync() async throws
    /// Who is known, and who is online now.
    func peers() async throws -> [PeerPresence]
    /// The running node's address, sessions and outbox.
    func status() async throws -> NodeStatus
    /// What happens from now on (messages stored, statuses, peers, changes), for one
    /// conversation or all; the stream ends when the node stops.
    func events(for conversation: ConversationID?) async throws -> AsyncStream<NodeEvent>
    /// Stops a node this messenger started in this process; an attached node keeps running.
    func close() async
}

extension Messenger {
    /// Stores a message that replies to nothing.
    public func send(_ text: String, to target: MessageTarget) async throws -> SentMessage {
        try await send(text, to: target, replyTo: nil)
    }
}

/// Where a message goes, already resolved: front ends resolve names (`Resolver`), the node
/// never resolves again.
public enum MessageTarget: Sendable, Hashable {
    case conversation(ConversationID)
    /// A peer with no thread yet: the message starts one.
    case newConversation(with: NodeID)
}

/// What `send_lines` answers: messages stored together have consecutive seqs, so the
/// first and the count name them all (Protocol.md §13).
public struct SentLines: Sendable, Equatable, Codable {
    public let conversation: ConversationID
    public let firstSeq: UInt64
    public let count: Int
    public let status: DeliveryStatus

    /// Nil unless `sent` is a run of consecutive messages of one conversation, as one
    /// transaction writes them.
    init?(_ sent: [SentMessage]) {
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
    var messages: [SentMessage] {
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
