import ConfabModel
import ConfabStore

/// A node running in this process, as its `LocalMessenger` sees it (ConfabNode's `Node`):
/// what was written is handed to it so it leaves at once, and the network's state comes
/// from it. The client knows no more of a node than this.
public protocol RunningNode: Sendable {
    /// My entries just stored: offered to peers now. `shown`: those of them that are
    /// messages, as a chat shows them (watchers get them without a read of the store).
    func didWrite(_ entries: [Entry], shown: [ChatMessage]) async throws
    /// A conversation started or changed here in a way peers learn from its clock.
    func changed(_ conversation: ConversationID) async throws
    /// Tells this process's watchers (a flag changed, a conversation deleted).
    func emit(_ event: NodeEvent)
    /// A file was accepted: fetch what is now wanted.
    func refreshFiles() async throws
    /// A peer's trust changed in the store: sessions follow it.
    func trustChanged() async throws
    func typing(_ active: Bool, in conversation: ConversationID) async throws
    func resync() async throws
    /// My person's device list grew here (a device removed): peers get it now, then my
    /// entries just written in `conversations` (the removal's rekeys).
    func ownDeviceListChanged(wrote conversations: Set<ConversationID>) async throws
    /// Opens this node's one link offer (Protocol.md §20.10); its progress goes to watchers.
    func offerLink() async throws -> LinkOfferStarted
    /// This person's answer to the words of the offer `id` (nil: the one running).
    func confirmLink(_ id: String?, yes: Bool) async throws
    /// Ends the offer `id` (nil: the one running), if it still runs.
    func cancelLink(_ id: String?) async throws
    /// My person's name changed: sessions reopen so that peers hear it in a new `Hello`.
    func renamed() async throws
    /// `confab doctor` with the options this node runs with.
    func doctor(seconds: Double) async throws -> DoctorSummary
    func peers() async -> [PeerPresence]
    func status() async throws -> NodeStatus
    func events() -> AsyncStream<NodeEvent>
    func stop() async
    /// Joins a room of the node's network and tells its peers.
    func joinRoom(_ room: RoomName) async throws -> ConversationID
    /// A room was left here (its conversation is gone from the store): peers are told.
    func roomsChanged() async throws
    /// Joined rooms and those peers in session said they joined.
    func rooms() async throws -> [RoomListing]
    /// No larger file is sent or fetched (Protocol.md §17.3).
    var maxFileSize: UInt64 { get }
}

extension RunningNode {
    /// My entries just stored, none of them shown yet: offered to peers now.
    func didWrite(_ entries: [Entry]) async throws {
        try await didWrite(entries, shown: [])
    }
}
