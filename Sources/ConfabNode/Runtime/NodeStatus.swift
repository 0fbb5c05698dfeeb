import ConfabModel

/// A snapshot of the node for `confab status`.
public struct NodeStatus: Sendable, Codable, Equatable {
    public struct Session: Sendable, Codable, Equatable {
        public let peer: NodeID
        public let name: String
        public let address: String
        public let initiator: Bool
    }

    /// Always true here; `status --json` says false, with the outbox, when no node runs.
    public var running = true
    public let id: NodeID
    public let name: String
    public let role: String
    public let listen: String
    public let discovery: Bool
    public let sessions: [Session]
    public let outbox: Int
    /// Entries peers announced that this node does not hold yet (a sync in progress).
    public let outstanding: Int
}
