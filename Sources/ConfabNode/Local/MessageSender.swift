import ConfabModel
import ConfabStore

/// Sends to a resolved target, creating the conversation with the first message when the
/// target is a peer we have no thread with yet.
public struct MessageSender {
    public struct Sent: Sendable {
        /// The message entry (when it started a conversation, its create entry was written
        /// too; sync offers both, as it offers whatever a peer lacks).
        public let entry: Entry
        public let created: Bool
    }

    public let store: ConfabStore
    private(set) var conversation: ConversationID?
    private let newWith: NodeID?
    private let target: String

    public init(store: ConfabStore, target: String) throws {
        self.store = store
        self.target = target
        let resolver = Resolver(store: store)
        let id: ConversationID
        do {
            id = try resolver.conversation(target)
        } catch let error as ResolveError {
            // A known peer with no thread yet: the first message starts one. When the target
            // is neither, the peer error (listing known peers) is the helpful one.
            _ = error
            let peer = try resolver.peer(target)
            try Self.refuseBlocked(try store.peer(peer).map { [($0.name, $0.id, $0.trust)] } ?? [])
            conversation = nil
            newWith = peer
            return
        }
        try Self.refuseBlocked(try store.conversation(id)?.participants.map { ($0.name, $0.id, $0.trust) } ?? [])
        conversation = id
        newWith = nil
    }

    /// Writing only to blocked peers would queue messages that never leave (their sessions
    /// are refused), so it is refused up front; a group with anyone else is fine.
    private static func refuseBlocked(_ recipients: [(name: String, id: NodeID, trust: Peer.Trust)]) throws {
        guard !recipients.isEmpty, recipients.allSatisfy({ $0.trust == .blocked }) else { return }
        let names = recipients.map { TextSanitizer.line($0.name) }.joined(separator: ", ")
        let unblock = recipients.map { "confab unblock \($0.id.shortHex)" }.joined(separator: "; ")
        throw StoreError.invalidInput(
            "\(names) \(recipients.count == 1 ? "is" : "are") blocked here, so nothing would reach them — to write, first run: \(unblock)"
        )
    }

    /// Who the messages go to, for people to read (computed on demand: the node's send path
    /// does not need it).
    public func name() throws -> String {
        if let conversation { return try store.conversation(conversation)?.displayName ?? target }
        return try newWith.flatMap { try store.peer($0)?.name } ?? target
    }

    public mutating func send(_ text: String) throws -> Sent {
        if let conversation {
            let entry = try store.sendMessage(text, to: conversation)
            return Sent(entry: entry, created: false)
        }
        let created = try store.createConversation(with: [newWith!], firstMessage: text)
        conversation = created.id
        return Sent(entry: created.message!, created: true)
    }
}
