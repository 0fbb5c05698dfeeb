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
    public let name: String

    public init(store: ConfabStore, target: String) throws {
        self.store = store
        let resolver = Resolver(store: store)
        let id: ConversationID
        do {
            id = try resolver.conversation(target)
        } catch let error as ResolveError {
            // A known peer with no thread yet: the first message starts one. When the target
            // is neither, the peer error (listing known peers) is the helpful one.
            _ = error
            let peer = try resolver.peer(target)
            conversation = nil
            newWith = peer
            name = try store.peer(peer)?.name ?? peer.shortHex
            return
        }
        conversation = id
        newWith = nil
        name = try store.conversation(id)?.displayName ?? target
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
