import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

/// The node the chat talks to: one started in this process, or the `confab up` already
/// serving the data directory, reached through its control socket. Either way the chat
/// reads the shared store directly; the node carries entries to peers and reports events.
public actor ChatBackend {
    public enum Mode: Sendable, Equatable {
        case inProcess
        case attached
    }

    public nonisolated let mode: Mode
    private let local: LocalNode
    private let node: Node?

    private init(mode: Mode, local: LocalNode, node: Node?) {
        self.mode = mode
        self.local = local
        self.node = node
    }

    /// Attaches to a running node if one answers on the control socket, else starts one
    /// here with `options`.
    public static func connect(local: LocalNode, options: NodeOptions) async throws -> ChatBackend {
        if ControlClient.mightBeRunning(local.directory),
            (try? await ControlClient.request(local.directory, method: "status", as: NodeStatus.self)) != nil
        {
            return ChatBackend(mode: .attached, local: local, node: nil)
        }
        let node = try Node(options: options)
        try await node.start()
        return ChatBackend(mode: .inProcess, local: local, node: node)
    }

    /// Node events until the node stops (an attached node may stop under us: the stream
    /// then ends and the chat says so).
    public func events() async -> AsyncStream<NodeEvent> {
        if let node { return await node.events() }
        let (stream, continuation) = AsyncStream.makeStream(
            of: NodeEvent.self, bufferingPolicy: .bufferingNewest(10_000))
        let directory = local.directory
        let store = local.store
        let task = Task {
            try? await ControlClient.watch(directory) { event in
                if let translated = Self.translate(event, store: store) { continuation.yield(translated) }
                return !Task.isCancelled
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Entries written to the store by the chat: sent to peers now.
    public func didWrite(_ entries: [Entry]) async {
        guard !entries.isEmpty else { return }
        if let node {
            try? await node.didWrite(entries)
            return
        }
        for conversation in Set(entries.map(\.conversationID)) {
            await ControlClient.notifyIfRunning(local.directory, conversation: conversation)
        }
    }

    /// The chat wrote to `conversation` without entries in hand (a new conversation).
    public func changed(_ conversation: ConversationID) async {
        if let node {
            try? await node.changed(conversation)
        } else {
            await ControlClient.notifyIfRunning(local.directory, conversation: conversation)
        }
    }

    public func peers() async -> [PeerPresence] {
        if let node { return await node.peers() }
        return (try? await ControlClient.request(local.directory, method: "peers", as: [PeerPresence].self)) ?? []
    }

    /// Entries peers announced that this node lacks; nil when the node cannot be asked.
    public func outstanding() async -> Int? {
        if let node { return try? await node.status().outstanding }
        return try? await ControlClient.request(local.directory, method: "status", as: NodeStatus.self).outstanding
    }

    public func resync() async throws {
        if let node {
            try await node.resync()
        } else {
            _ = try await ControlClient.request(local.directory, method: "resync", as: ControlProtocol.Empty.self)
        }
    }

    /// Stops the node if it runs in this process; an attached node keeps running.
    public func stop() async {
        await node?.stop()
    }

    /// A control-socket event as the in-process node would have reported it; messages are
    /// read back from the shared store, which holds them before the event is sent.
    static func translate(_ event: ControlProtocol.Event, store: ConfabStore) -> NodeEvent? {
        switch event.event {
        case "message":
            guard let message = event.message, let conversation = ConversationID(hex: message.conversation),
                let author = NodeID(hex: message.author),
                let stored = try? store.message(conversation, author: author, seq: message.seq)
            else { return nil }
            return .message(stored)
        case "status":
            guard let conversation = event.conversation.flatMap(ConversationID.init(hex:)), let seq = event.seq,
                let status = event.status.flatMap(DeliveryStatus.init(rawValue:))
            else { return nil }
            return .status(conversation: conversation, seq: seq, status: status)
        case "peer_online":
            return event.peer.map { .peerOnline($0) }
        case "peer_offline":
            return event.peer.map { .peerOffline($0) }
        default:
            return nil
        }
    }
}
