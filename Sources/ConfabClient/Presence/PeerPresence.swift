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
    /// What its last Hello said it speaks, and the oldest version it syncs with; nil until
    /// a session with it opened since this node started.
    public var protocolVersion: UInt32?
    public var oldestProtocolVersion: UInt32?
    /// The person's machines when their device list names others (the person's own key
    /// first); nil for a person of one machine.
    public var devices: [DevicePresence]?
    /// Another machine of this node's own person (Protocol.md §20): listed so its presence
    /// shows, and no one to start a conversation with or add to one. Nil for anyone else.
    public var ownDevice: Bool?

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

    /// How the two versions get on, when they differ.
    public var compatibility: ProtocolCompatibility? {
        guard let protocolVersion else { return nil }
        let compatibility = ProtocolCompatibility(
            peerVersion: protocolVersion, peerOldest: oldestProtocolVersion ?? 1)
        return compatibility == .same ? nil : compatibility
    }

    /// What the person is told when the peer's version costs them something (Protocol.md
    /// §12.1); nil when nothing is lost.
    public var protocolNotice: String? {
        compatibility.flatMap { ProtocolNotice.text(name: name, $0) }
    }
}
