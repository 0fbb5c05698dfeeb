import ConfabModel
import ConfabStore
import ConfabWire
import Foundation

/// The messenger of this process: writes go straight into the store, and the node running
/// in this process (if any) is handed what was written so it leaves at once. Without a
/// node, writes wait in the outbox ("sending…") for the next `confab up`; asking for the
/// network's state then says no node is running. Each `perform` is that operation's one
/// handler: the control socket answers with a `LocalMessenger` too.
public struct LocalMessenger: Messenger {
    /// No file larger is sent while no node (with its own limit) runs here.
    public static let defaultMaxFileSize: UInt64 = 4 << 30

    public let local: Profile
    public let node: (any RunningNode)?
    /// Whether `close()` stops the node (it was started for this messenger).
    private let ownsNode: Bool
    /// The network a room is joined on while no node runs here (a node knows its own).
    private let network: NetworkKey?

    public init(
        local: Profile, node: (any RunningNode)? = nil, ownsNode: Bool = false, network: NetworkKey? = nil
    ) {
        self.local = local
        self.node = node
        self.ownsNode = ownsNode
        self.network = network
    }

    private var store: ConfabStore { local.store }

    public var reachesNode: Bool { node != nil }

    public func perform(_ operation: Operations.Send) async throws -> SentMessage {
        switch operation.target {
        case .conversation(let id):
            let written = try store.writeMessage(
                operation.text, to: id, replyTo: operation.replyTo, recipients: MessageTarget.refuseOnlyBlocked)
            try await node?.didWrite([written.entry], shown: written.message.map { [$0] } ?? [])
            return SentMessage(conversation: id, seq: written.entry.seq, status: .sending, created: false)
        case .newConversation(let peer):
            guard operation.replyTo == nil else {
                throw StoreError.invalidInput("a reply goes to the conversation of the message it answers")
            }
            try MessageTarget.refuseBlocked(peer, store: store)
            guard let entry = try store.createConversation(with: [peer], firstMessage: operation.text).message else {
                throw StoreError.invalidInput("the message is empty")
            }
            try await node?.didWrite([entry])
            return SentMessage(conversation: entry.conversationID, seq: entry.seq, status: .sending, created: true)
        }
    }

    public func perform(_ operation: Operations.SendLines) async throws -> SentLines {
        let written = try store.writeMessages(
            operation.texts, to: operation.conversation, recipients: MessageTarget.refuseOnlyBlocked)
        let entries = written.map(\.entry)
        try await node?.didWrite(entries, shown: written.compactMap(\.message))
        // One transaction writes them in a row.
        return SentLines(
            conversation: operation.conversation, firstSeq: entries.first?.seq ?? 0, count: entries.count,
            status: .sending)
    }

    public func perform(_ operation: Operations.Edit) async throws -> MessageAction {
        let entry = try store.editMessage(operation.target, in: operation.conversation, text: operation.text)
        try await node?.didWrite([entry])
        return MessageAction(
            conversation: operation.conversation, target: operation.target, seq: entry.seq, status: .sending)
    }

    public func perform(_ operation: Operations.Unsend) async throws -> MessageAction {
        let entry = try store.unsendMessage(operation.target, in: operation.conversation)
        try await node?.didWrite([entry])
        return MessageAction(
            conversation: operation.conversation, target: operation.target, seq: entry.seq, status: .sending)
    }

    public func perform(_ operation: Operations.React) async throws -> ReactionSent {
        let conversation = operation.conversation
        try MessageTarget.refuseOnlyBlocked(in: conversation, store: store)
        let entry = try store.react(
            operation.emoji, to: operation.message, in: conversation, removed: operation.remove)
        try await node?.didWrite([entry])
        guard let stored = try store.reaction(in: conversation, reactor: store.me, seq: entry.seq) else {
            throw StoreError.invalidInput("the reaction was not stored")
        }
        return ReactionSent(
            conversation: conversation, target: operation.message.id(in: conversation), emoji: stored.change.emoji,
            removed: operation.remove, seq: entry.seq, status: .sending)
    }

    public func perform(_ operation: Operations.ChangeMembers) async throws -> MembershipChange {
        let entry = try store.changeMembers(
            of: operation.conversation, add: operation.add, remove: operation.remove, shareHistory: operation.history)
        try await node?.didWrite([entry])
        return MembershipChange(conversation: operation.conversation, seq: entry.seq, status: .sending)
    }

    public func perform(_ operation: Operations.Join) async throws -> JoinedRoom {
        if let node { return JoinedRoom(room: operation.room, conversation: try await node.joinRoom(operation.room)) }
        guard let network else {
            throw StoreError.invalidInput("joining a room needs this machine's network key; run \"confab up\" first")
        }
        let id = try store.joinRoom(RoomGenesis(name: operation.room, network: network))
        return JoinedRoom(room: operation.room, conversation: id)
    }

    public func perform(_ operation: Operations.Rooms) async throws -> [RoomListing] {
        if let node { return try await node.rooms() }
        return try store.joinedRooms().map { RoomListing(room: $0.key, conversation: $0.value, peers: 0) }
            .sorted { $0.room < $1.room }
    }

    public func perform(_ operation: Operations.Leave) async throws -> MembershipChange {
        // Leaving a room writes nothing: it goes from this machine, and peers are told.
        if try store.isRoom(operation.conversation) {
            try store.leaveRoom(operation.conversation)
            try await node?.roomsChanged()
            node?.emit(.changed(operation.conversation))
            return MembershipChange(conversation: operation.conversation, seq: 0, status: .sent)
        }
        let entry = try store.leave(operation.conversation)
        try await node?.didWrite([entry])
        return MembershipChange(conversation: operation.conversation, seq: entry.seq, status: .sending)
    }

    public func perform(_ operation: Operations.SendFile) async throws -> SentFile {
        let url = URL(fileURLWithPath: operation.path)
        let store = store
        let maxSize = node?.maxFileSize ?? Self.defaultMaxFileSize
        // Encrypting a large file takes seconds of disk and CPU: off the shared threads, so
        // the node (and everything else) goes on meanwhile.
        let (imported, header) = try await Blocking.run {
            (try store.importFile(at: url, maxSize: maxSize), Self.header(of: url))
        }
        let name = url.lastPathComponent
        let conversation: ConversationID
        var created = false
        switch operation.target {
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
            imported, name: name, folder: operation.folder, mediaType: MediaType.guess(forName: name),
            width: dimensions?.width ?? 0, height: dimensions?.height ?? 0, to: conversation)
        if created { try await node?.changed(conversation) }
        try await node?.didWrite([entry])
        return SentFile(
            conversation: conversation, seq: entry.seq, file: imported.fileID, name: name, size: imported.layout.size,
            status: .sending, created: created)
    }

    public func perform(_ operation: Operations.AcceptFile) async throws -> ControlEmpty {
        try store.acceptFile(operation.file)
        try await node?.refreshFiles()
        return ControlEmpty()
    }

    /// The first bytes of a file, enough to read an image's dimensions.
    private static func header(of url: URL) -> [UInt8] {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: ImageDimensions.headerBytes)) ?? Data())
    }

    public func perform(_ operation: Operations.Create) async throws -> CreatedConversation {
        let created = try store.createConversation(
            with: operation.participants, title: operation.title, firstMessage: operation.firstMessage,
            large: operation.large ?? false)
        try await node?.changed(created.id)
        return CreatedConversation(conversation: created.id, firstMessageSeq: created.message?.seq)
    }

    public func perform(_ operation: Operations.MarkRead) async throws -> Bool {
        let receipt = try store.markRead(operation.conversation)
        if let receipt { try await node?.didWrite([receipt]) }
        node?.emit(.changed(operation.conversation))
        return receipt != nil
    }

    public func perform(_ operation: Operations.SetFlag) async throws -> ControlEmpty {
        try store.setFlag(operation.flag, operation.value, on: operation.conversation)
        try await offerPersonalSettings()
        node?.emit(.changed(operation.conversation))
        return ControlEmpty()
    }

    public func perform(_ operation: Operations.Delete) async throws -> ControlEmpty {
        try store.deleteConversation(operation.conversation)
        try await offerPersonalSettings()
        node?.emit(.changed(operation.conversation))
        return ControlEmpty()
    }

    public func perform(_ operation: Operations.SetTrust) async throws -> ControlEmpty {
        if try store.peer(operation.peer)?.trust != operation.trust {
            try store.setTrust(operation.peer, operation.trust)
            try await offerPersonalSettings()
        }
        try await node?.trustChanged()
        node?.emit(.changed(nil))
        return ControlEmpty()
    }

    /// The store wrote the change into the person's personal conversation (Protocol.md
    /// §20.15) when the person has other devices: the node offers it to them now.
    func offerPersonalSettings() async throws {
        guard let node, let personal = try store.personalConversation() else { return }
        try await node.changed(personal)
    }

    public func perform(_ operation: Operations.AddPeer) async throws -> Peer {
        let operation = try operation.validated()
        // The store refuses a name another key has here, or one that looks the same.
        try store.savePeer(operation.peer, name: operation.name)
        guard let peer = try store.peer(operation.peer) else {
            throw StoreError.invalidInput("the peer was not saved; try again")
        }
        // A peer added by hand is one to dial where it was last met.
        try await node?.trustChanged()
        node?.emit(.changed(nil))
        return peer
    }

    public func perform(_ operation: Operations.SetName) async throws -> NameAnswer {
        try store.setDisplayName(operation.name)
        let name = try local.displayName()
        try await node?.renamed()
        node?.emit(.changed(nil))
        return NameAnswer(name: name)
    }

    public func perform(_ operation: Operations.Doctor) async throws -> DoctorSummary {
        try await running().doctor(seconds: operation.validated().seconds)
    }

    public func perform(_ operation: Operations.Changed) async throws -> ControlEmpty {
        try await node?.changed(operation.conversation)
        return ControlEmpty()
    }

    public func perform(_ operation: Operations.Typing) async throws -> ControlEmpty {
        try await node?.typing(operation.value, in: operation.conversation)
        return ControlEmpty()
    }

    public func perform(_ operation: Operations.Resync) async throws -> ControlEmpty {
        try await running().resync()
        return ControlEmpty()
    }

    public func perform(_ operation: Operations.Peers) async throws -> [PeerPresence] {
        guard let node else {
            return try store.peers().map {
                PeerPresence(
                    id: $0.id, name: $0.name, online: false, connected: false, address: $0.address,
                    lastSeen: $0.lastSeenAt, role: .person, trust: $0.trust, warning: $0.warning)
            }.markingOwnDevices(try store.myDevices())
        }
        return await node.peers()
    }

    public func perform(_ operation: Operations.Status) async throws -> NodeStatus {
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
        guard ownsNode else { return }
        await node?.stop()
        // The chat's own node has stopped and the process ends with it: the store's log
        // goes, and deleted words with it (the node logs its stop; a failure here leaves the
        // log to the next open's scrub).
        try? local.store.closeDatabase()
    }

    private func running() throws -> any RunningNode {
        guard let node else { throw ClientError.notRunning(local.directory.path) }
        return node
    }
}
extension MessageTarget {
    /// Writing only to blocked peers would queue messages that never leave (their sessions
    /// are refused), so it is refused up front; a group with anyone else is fine.
    static func refuseOnlyBlocked(in conversation: ConversationID, store: ConfabStore) throws {
        // On every send: the participants and their trust alone, not the whole summary.
        try refuseOnlyBlocked(try store.otherParticipants(of: conversation))
    }

    /// The same, for the other participants as the store read them while writing.
    static func refuseOnlyBlocked(_ participants: [ConversationSummary.Participant]) throws {
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
