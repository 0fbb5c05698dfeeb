import ConfabModel
import ConfabStore

/// What every front end does to conversations, and reads of them — the CLI, the control
/// socket, the full-screen chat and the plain chat all go through this one API: one
/// `perform` for each operation (`OperationMethod` lists them). Two implementations: `LocalMessenger` works on
/// this process's store (and tells a node running in this process, if there is one);
/// `AttachedMessenger` asks the `confab up` that serves the data directory over its control
/// socket, which answers with a `LocalMessenger` of its own. Either way every write is
/// stored before the call returns, and a node that runs offers it to peers at once.
public protocol Messenger: Sendable {
    /// Stores a message and hands it to the network; returns once it is stored.
    func perform(_ operation: Operations.Send) async throws -> SentMessage
    /// Several messages to one conversation, in order, in one transaction: all or nothing.
    func perform(_ operation: Operations.SendLines) async throws -> SentLines
    /// Every node then shows the new text, marked edited (Protocol.md §4.5).
    func perform(_ operation: Operations.Edit) async throws -> MessageAction
    /// Deletes my message for everyone (Protocol.md §4.5).
    func perform(_ operation: Operations.Unsend) async throws -> MessageAction
    /// Adds my reaction to anyone's message, or takes it back (Protocol.md §4.5).
    func perform(_ operation: Operations.React) async throws -> ReactionSent
    /// Any member adds, only the admin removes (Protocol.md §4.8).
    func perform(_ operation: Operations.ChangeMembers) async throws -> MembershipChange
    func perform(_ operation: Operations.Leave) async throws -> MembershipChange
    /// Returns once the file message is stored; peers fetch the content from then on.
    func perform(_ operation: Operations.SendFile) async throws -> SentFile
    func perform(_ operation: Operations.AcceptFile) async throws -> ControlEmpty
    func perform(_ operation: Operations.Create) async throws -> CreatedConversation
    /// Whether a read receipt was written (one is written when due).
    func perform(_ operation: Operations.MarkRead) async throws -> Bool
    func perform(_ operation: Operations.SetFlag) async throws -> ControlEmpty
    func perform(_ operation: Operations.Delete) async throws -> ControlEmpty
    func perform(_ operation: Operations.SetTrust) async throws -> ControlEmpty
    func perform(_ operation: Operations.AddPeer) async throws -> Peer
    func perform(_ operation: Operations.SetName) async throws -> NameAnswer
    func perform(_ operation: Operations.Doctor) async throws -> DoctorSummary
    /// Nothing is sent while the typing setting is off or no node runs (Protocol.md §10.2).
    func perform(_ operation: Operations.Typing) async throws -> ControlEmpty
    func perform(_ operation: Operations.Changed) async throws -> ControlEmpty
    func perform(_ operation: Operations.Resync) async throws -> ControlEmpty
    func perform(_ operation: Operations.Peers) async throws -> [PeerPresence]
    func perform(_ operation: Operations.Status) async throws -> NodeStatus
    func perform(_ operation: Operations.TypingSetting) async throws -> TypingIndicators
    /// Joins a room by name (Protocol.md §18); leaving is `Leave` of its conversation.
    func perform(_ operation: Operations.Join) async throws -> JoinedRoom
    /// The rooms joined here and those peers say they are in.
    func perform(_ operation: Operations.Rooms) async throws -> [RoomListing]
    /// Only on the machine that holds the person key; peers hear of it at once while a node
    /// runs (Protocol.md §20.13).
    func perform(_ operation: Operations.RemoveDevice) async throws -> DeviceRemoved
    /// Only on the machine that holds the person key, with a node running (Protocol.md §20.10).
    func perform(_ operation: Operations.OfferLink) async throws -> LinkOfferStarted
    func perform(_ operation: Operations.ConfirmLink) async throws -> ControlEmpty
    func perform(_ operation: Operations.CancelLink) async throws -> ControlEmpty

    // Reads (`ReadOperation`): the store's answer, whether or not a node runs.
    func perform(_ operation: Operations.Conversations) async throws -> [ConversationSummary]
    func perform(_ operation: Operations.Conversation) async throws -> ConversationSummary
    func perform(_ operation: Operations.History) async throws -> HistoryPage
    func perform(_ operation: Operations.Message) async throws -> ChatMessage?
    func perform(_ operation: Operations.LastOwnMessage) async throws -> ChatMessage?
    func perform(_ operation: Operations.Search) async throws -> [SearchHit]
    func perform(_ operation: Operations.Members) async throws -> MemberList
    func perform(_ operation: Operations.Files) async throws -> [FileInfo]
    func perform(_ operation: Operations.KnownPeers) async throws -> [Peer]
    func perform(_ operation: Operations.SafetyNumberWith) async throws -> SafetyNumberAnswer
    func perform(_ operation: Operations.SaveFile) async throws -> SavedFile
    func perform(_ operation: Operations.Devices) async throws -> DeviceListing

    /// What happens from now on (messages stored, statuses, peers, changes), for one
    /// conversation or all; the stream ends when the node stops.
    func events(for conversation: ConversationID?) async throws -> AsyncStream<NodeEvent>
    /// Whether what this messenger writes reaches a running node now (one attached, or one
    /// in this process), rather than waiting in the outbox for the next `confab up`.
    var reachesNode: Bool { get }
    /// Stops a node this messenger started in this process; an attached node keeps running.
    func close() async
}

/// The operations by the names front ends use.
extension Messenger {
    public func send(_ text: String, to target: MessageTarget, replyTo: MessageRef? = nil) async throws -> SentMessage {
        try await perform(Operations.Send(text: text, to: target, replyTo: replyTo))
    }

    /// Several messages to one conversation, each stored before its acknowledgement comes
    /// back, in requests of about 32 KiB of text (`send --lines` reading a fast pipe): each
    /// request is stored whole or not at all.
    public func send(_ texts: [String], to conversation: ConversationID) async throws -> [SentMessage] {
        var sent: [SentMessage] = []
        var chunk: [String] = []
        var bytes = 0
        for text in texts {
            if !chunk.isEmpty, bytes + text.utf8.count > SentLines.requestBytes {
                sent += try await sendLines(chunk, to: conversation)
                chunk = []
                bytes = 0
            }
            chunk.append(text)
            bytes += text.utf8.count
        }
        if !chunk.isEmpty { sent += try await sendLines(chunk, to: conversation) }
        return sent
    }

    private func sendLines(_ texts: [String], to conversation: ConversationID) async throws -> [SentMessage] {
        let answer = try await perform(Operations.SendLines(texts: texts, to: conversation))
        // An answer is believed only for as many messages as its request carried.
        guard answer.count == texts.count, answer.conversation == conversation else {
            throw ClientError.control(
                "the node answered \(answer.count) messages stored for \(texts.count) sent — look at them with \"confab history\" before sending them again"
            )
        }
        return answer.messages
    }

    public func edit(_ seq: UInt64, in conversation: ConversationID, text: String) async throws -> MessageAction {
        try await perform(Operations.Edit(conversation: conversation, target: seq, text: text))
    }

    public func unsend(_ seq: UInt64, in conversation: ConversationID) async throws -> MessageAction {
        try await perform(Operations.Unsend(conversation: conversation, target: seq))
    }

    public func react(
        _ emoji: String, to target: MessageRef, in conversation: ConversationID, removed: Bool
    ) async throws -> ReactionSent {
        try await perform(Operations.React(conversation: conversation, message: target, emoji: emoji, remove: removed))
    }

    public func changeMembers(
        of conversation: ConversationID, add: [NodeID], remove: [NodeID], shareHistory: Bool
    ) async throws -> MembershipChange {
        try await perform(
            Operations.ChangeMembers(conversation: conversation, add: add, remove: remove, history: shareHistory))
    }

    public func leave(_ conversation: ConversationID) async throws -> MembershipChange {
        try await perform(Operations.Leave(conversation))
    }

    /// A file of this machine (`path`, absolute); `folder` places it in a folder sent as a
    /// tree.
    public func sendFile(at path: String, folder: String, to target: MessageTarget) async throws -> SentFile {
        try await perform(Operations.SendFile(path: path, folder: folder, to: target))
    }

    public func acceptFile(_ file: FileID) async throws {
        _ = try await perform(Operations.AcceptFile(file))
    }

    public func create(
        with participants: [NodeID], title: String?, firstMessage: String?, large: Bool = false
    ) async throws -> CreatedConversation {
        try await perform(
            Operations.Create(participants: participants, title: title, firstMessage: firstMessage, large: large))
    }

    @discardableResult
    public func markRead(_ conversation: ConversationID) async throws -> Bool {
        try await perform(Operations.MarkRead(conversation))
    }

    public func setFlag(_ flag: LocalFlag, _ value: Bool, on conversation: ConversationID) async throws {
        _ = try await perform(Operations.SetFlag(flag, value, on: conversation))
    }

    public func delete(_ conversation: ConversationID) async throws {
        _ = try await perform(Operations.Delete(conversation))
    }

    public func setTrust(_ trust: Peer.Trust, for peer: NodeID) async throws {
        _ = try await perform(Operations.SetTrust(trust, for: peer))
    }

    public func typing(_ active: Bool, in conversation: ConversationID) async throws {
        _ = try await perform(Operations.Typing(conversation, active: active))
    }

    /// Another process wrote to `conversation` through the store: a running node offers it.
    public func changed(_ conversation: ConversationID) async throws {
        _ = try await perform(Operations.Changed(conversation))
    }

    public func resync() async throws {
        _ = try await perform(Operations.Resync())
    }

    public func peers() async throws -> [PeerPresence] {
        try await perform(Operations.Peers())
    }

    public func status() async throws -> NodeStatus {
        try await perform(Operations.Status())
    }
}

/// Where a message goes, already resolved: front ends resolve names (`Resolver`), the node
/// never resolves again.
public enum MessageTarget: Sendable, Hashable {
    case conversation(ConversationID)
    /// A peer with no thread yet: the message starts one.
    case newConversation(with: NodeID)
}
