import ConfabModel
import ConfabStore
import Foundation

/// The messenger of this process: writes go straight into the store, and the node running
/// in this process (if any) is handed what was written so it leaves at once. Without a
/// node, writes wait in the outbox ("sending…") for the next `confab up`; asking for the
/// network's state then says no node is running.
public struct LocalMessenger: Messenger {
    public let local: Profile
    public let node: Node?
    /// Whether `close()` stops the node (it was started for this messenger).
    private let ownsNode: Bool

    public init(local: Profile, node: Node? = nil, ownsNode: Bool = false) {
        self.local = local
        self.node = node
        self.ownsNode = ownsNode
    }

    private var store: ConfabStore { local.store }

    public func send(_ text: String, to target: MessageTarget, replyTo: MessageRef?) async throws -> SentMessage {
        let entry: Entry
        let created: Bool
        switch target {
        case .conversation(let id):
            try MessageTarget.refuseOnlyBlocked(in: id, store: store)
            entry = try store.sendMessage(text, to: id, replyTo: replyTo)
            created = false
        case .newConversation(let peer):
            guard replyTo == nil else {
                throw StoreError.invalidInput("a reply goes to the conversation of the message it answers")
            }
            try MessageTarget.refuseBlocked(peer, store: store)
            guard let message = try store.createConversation(with: [peer], firstMessage: text).message else {
                throw StoreError.invalidInput("the message is empty")
            }
            entry = message
            created = true
        }
        try await node?.didWrite([entry])
        return SentMessage(conversation: entry.conversationID, seq: entry.seq, status: .sending, created: created)
    }

    public func send(_ texts: [String], to conversation: ConversationID) async throws -> [SentMessage] {
        guard !texts.isEmpty else { return [] }
        try MessageTarget.refuseOnlyBlocked(in: conversation, store: store)
        let entries = try store.sendMessages(texts, to: conversation)
        try await node?.didWrite(entries)
        return entries.map { SentMessage(conversation: conversation, seq: $0.seq, status: .sending, created: false) }
    }

    public func edit(_ seq: UInt64, in conversation: ConversationID, text: String) async throws -> MessageAction {
        let entry = try store.editMessage(seq, in: conversation, text: text)
        try await node?.didWrite([entry])
        return MessageAction(conversation: conversation, target: seq, seq: entry.seq, status: .sending)
    }

    public func changeMembers(
        of conversation: ConversationID, add: [NodeID], remove: [NodeID], shareHistory: Bool
    ) async throws -> MembershipChange {
        let entry = try store.changeMembers(of: conversation, add: add, remove: remove, shareHistory: shareHistory)
        try await node?.didWrite([entry])
        return MembershipChange(conversation: conversation, seq: entry.seq, status: .sending)
    }

    public func leave(_ conversation: ConversationID) async throws -> MembershipChange {
        let entry = try store.leave(conversation)
        try await node?.didWrite([entry])
        return MembershipChange(conversation: conversation, seq: entry.seq, status: .sending)
    }

    public func unsend(_ seq: UInt64, in conversation: ConversationID) async throws -> MessageAction {
        let entry = try store.unsendMessage(seq, in: conversation)
        try await node?.didWrite([entry])
        return MessageAction(conversation: conversation, target: seq, seq: entry.seq, status: .sending)
    }

    public func react(
        _ emoji: String, to target: MessageRef, in conversation: ConversationID, removed: Bool
    ) async throws -> ReactionSent {
        try MessageTarget.refuseOnlyBlocked(in: conversation, store: store)
        let entry = try store.react(emoji, to: target, in: conversation, removed: removed)
        try await node?.didWrite([entry])
        guard let stored = try store.reaction(in: conversation, reactor: store.me, seq: entry.seq) else {
            throw StoreError.invalidInput("the reaction was not stored")
        }
        return ReactionSent(
            conversation: conversation, target: target.id(in: conversation), emoji: stored.change.emoji,
            removed: removed, seq: entry.seq, status: .sending)
    }

    public func sendFile(at path: String, folder: String, to target: MessageTarget) async throws -> SentFile {
        let url = URL(fileURLWithPath: path)
        let store = store
        let maxSize = node?.options.maxFileSize ?? NodeOptions(directory: local.directory).maxFileSize
        // Encrypting a large file takes seconds of disk and CPU: off the shared threads, so
        // the node (and everything else) goes on meanwhile.
        let (imported, header) = try await Blocking.run {
            (try store.importFile(at: url, maxSize: maxSize), Self.header(of: url))
        }
        let name = url.lastPathComponent
        let conversation: ConversationID
        var created = false
        switch target {
        case .conversation(let id):
            try MessageTarget.refuseOnlyBlocked(in: id, store: store)
            conversation = id
        case .newConversation(let peer):
            try MessageTarget.refuseBlocked(peer, store: store)
            conversation = try store.createConversation(with: [peer]).id
            created = true
        }
        let dimensions = ImageDimensions.read(header)
        let entry = try store.sendFile(
            imported, name: name, folder: folder, mediaType: MediaType.guess(forName: name),
            width: dimensions?.width ?? 0, height: dimensions?.height ?? 0, to: conversation)
        if created { try await node?.changed(conversation) }
        try await node?.didWrite([entry])
        return SentFile(
            conversation: conversation, seq: entry.seq, file: imported.fileID, name: name, size: imported.layout.size,
            status: .sending, created: created)
    }

    public func acceptFile(_ file: FileID) async throws {
        try store.acceptFile(file)
        try await node?.refreshFiles()
    }

    /// The first bytes of a file, enough to read an image's dimensions.
    private static func header(of url: URL) -> [UInt8] {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: ImageDimensions.headerBytes)) ?? Data())
    }

    public func create(
        with participants: [NodeID], title: String?, firstMessage: String?
    ) async throws -> CreatedConversation {
        let created = try store.createConversation(with: participants, title: title, firstMessage: firstMessage)
        try await node?.changed(created.id)
        return CreatedConversation(conversation: created.id, firstMessageSeq: created.message?.seq)
    }

    @discardableResult
    public func markRead(_ conversation: ConversationID) async throws -> Bool {
        let receipt = try store.markRead(conversation)
        if let receipt { try await node?.didWrite([receipt]) }
        node?.emit(.changed(conversation))
        return receipt != nil
    }

    public func setFlag(_ flag: LocalFlag, _ value: Bool, on conversation: ConversationID) async throws {
        try store.setFlag(flag, value, on: conversation)
        node?.emit(.changed(conversation))
    }

    public func delete(_ conversation: ConversationID) async throws {
        try store.deleteConversation(conversation)
        node?.emit(.changed(conversation))
    }

    public func setTrust(_ trust: Peer.Trust, for peer: NodeID) async throws {
        if try store.peer(peer)?.trust != trust { try store.setTrust(peer, trust) }
        try await node?.trustChanged()
        node?.emit(.changed(nil))
    }

    /// Another process wrote to `conversation` through the store.
    public func changed(_ conversation: ConversationID) async throws {
        try await node?.changed(conversation)
    }

    public func typing(_ active: Bool, in conversation: ConversationID) async throws {
        try await node?.typing(active, in: conversation)
    }

    public func resync() async throws {
        try await running().resync()
    }

    public func peers() async throws -> [PeerPresence] {
        guard let node else {
            return try store.peers().map {
                PeerPresence(
                    id: $0.id, name: $0.name, online: false, connected: false, address: $0.address,
                    lastSeen: $0.lastSeenAt, role: "person", trust: $0.trust.rawValue, warning: $0.warning)
            }
        }
        return await node.peers()
    }

    public func status() async throws -> NodeStatus {
        try await running().status()
    }

    public func events(for conversation: ConversationID?) async throws -> AsyncStream<NodeEvent> {
        let events = try running().events()
        guard let conversation else { return events }
        return AsyncStream { continuation in
            let task = Task {
                for await event in events where event.concerns(conversation) { continuation.yield(event) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func close() async {
        if ownsNode { await node?.stop() }
    }

    private func running() throws -> Node {
        guard let node else { throw NodeError.notRunning(local.directory.path) }
        return node
    }
}

extension MessageTarget {
    /// Writing only to blocked peers would queue messages that never leave (their sessions
    /// are refused), so it is refused up front; a group with anyone else is fine.
    static func refuseOnlyBlocked(in conversation: ConversationID, store: ConfabStore) throws {
        // On every send: the participants and their trust alone, not the whole summary.
        let participants = try store.otherParticipants(of: conversation)
        try refuse(participants.map { ($0.name, $0.id, $0.trust) })
    }

    static func refuseBlocked(_ peer: NodeID, store: ConfabStore) throws {
        try refuse(try store.peer(peer).map { [($0.name, $0.id, $0.trust)] } ?? [])
    }

    private static func refuse(_ recipients: [(name: String, id: NodeID, trust: Peer.Trust)]) throws {
        guard !recipients.isEmpty, recipients.allSatisfy({ $0.trust == .blocked }) else { return }
        let names = recipients.map { TextSanitizer.line($0.name) }.joined(separator: ", ")
        let unblock = recipients.map { "confab unblock \($0.id.shortHex)" }.joined(separator: "; ")
        throw StoreError.invalidInput(
            "\(names) \(recipients.count == 1 ? "is" : "are") blocked here, so nothing would reach them — to write, first run: \(unblock)"
        )
    }
}
