import ConfabModel
import ConfabStore
import ConfabWire
import Foundation

/// Whether a peer is reachable now, and where.
public struct PeerPresence: Sendable, Equatable, Codable {
    public let id: NodeID
    public var name: String
    public var online: Bool
    public var connected: Bool
    public var address: String?
    public var lastSeen: Date?
    public var role: NodeRole
    /// Nil from a node that did not say.
    public var trust: Peer.Trust?
    /// Set when the key claimed a name another key already has here (Peer.warning).
    public var warning: String?

    public init(
        id: NodeID, name: String, online: Bool, connected: Bool, address: String?, lastSeen: Date?, role: NodeRole,
        trust: Peer.Trust? = nil, warning: String? = nil
    ) {
        self.trust = trust
        self.warning = warning
        self.id = id
        self.name = name
        self.online = online
        self.connected = connected
        self.address = address
        self.lastSeen = lastSeen
        self.role = role
    }
}
