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
    /// The name this key introduced itself with when another key already went by it here:
    /// possibly someone impersonating that peer. Its own name here was made distinct.
    public var claimedName: String?

    public init(
        id: NodeID, name: String, trust: Trust = .unverified, addedAt: Date, lastSeenAt: Date? = nil,
        address: String? = nil, claimedName: String? = nil
    ) {
        self.id = id
        self.name = name
        self.trust = trust
        self.addedAt = addedAt
        self.lastSeenAt = lastSeenAt
        self.address = address
        self.claimedName = claimedName
    }

    /// What a person should be told before trusting this key, or nil. A verified key has
    /// been compared out of band, which settles the doubt.
    public var warning: String? {
        guard let claimedName, trust != .verified else { return nil }
        // The name came from the network: quoted with control characters escaped, so it
        // cannot drive the terminal it is printed on.
        return "introduced itself as \(claimedName.debugDescription), a name another key already has here — "
            + "it may be someone else; compare safety numbers (confab verify \(id.shortHex))"
    }
}
