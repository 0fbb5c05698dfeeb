import ConfabModel
import Foundation

/// Whether a peer is reachable now, and where.
public struct PeerPresence: Sendable, Equatable, Codable {
    public let id: NodeID
    public var name: String
    public var online: Bool
    public var connected: Bool
    public var address: String?
    public var lastSeen: Date?
    public var role: String

    public init(
        id: NodeID, name: String, online: Bool, connected: Bool, address: String?, lastSeen: Date?, role: String
    ) {
        self.id = id
        self.name = name
        self.online = online
        self.connected = connected
        self.address = address
        self.lastSeen = lastSeen
        self.role = role
    }
}
