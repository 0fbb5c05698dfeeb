import Foundation

/// Someone this node knows: a key and the name it goes by here.
public struct Peer: Sendable, Equatable, Codable {
    public enum Trust: String, Sendable, Codable {
        /// Key seen or entered, never compared out of band.
        case unverified
        /// The safety number was compared and confirmed.
        case verified
        case blocked
    }

    public let id: NodeID
    public var name: String
    public var trust: Trust
    public var addedAt: Date
    public var lastSeenAt: Date?
    public var address: String?

    public init(
        id: NodeID, name: String, trust: Trust = .unverified, addedAt: Date, lastSeenAt: Date? = nil,
        address: String? = nil
    ) {
        self.id = id
        self.name = name
        self.trust = trust
        self.addedAt = addedAt
        self.lastSeenAt = lastSeenAt
        self.address = address
    }
}
