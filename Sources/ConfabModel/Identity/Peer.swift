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
    /// The name this key introduced itself with when another key already went by it (or a
    /// name that looks the same) here, or when it looked like a key: possibly someone
    /// impersonating that peer. Its own name here was made distinct.
    public var claimedName: String?
    /// Verified, and their device list changed since (a device linked or removed): the
    /// verification spoke of the machines they had then. Nil: no (and from a node that did
    /// not say).
    public var devicesChangedSinceVerified: Bool?

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
        if trust == .verified, devicesChangedSinceVerified == true {
            return "verified, but their devices changed since (a machine linked or removed, see its line in your "
                + "conversations); if you expected it, verify them again (confab verify \(id.hex) --confirm)"
        }
        guard let claimedName, trust != .verified else { return nil }
        // The name came from the network: quoted with control and format characters escaped,
        // so it cannot drive the terminal it is printed on.
        let what =
            DisplayName.looksLikeKey(claimedName)
            ? "a name that looks like a key or key prefix"
            : "a name another key already has here (or one that looks the same)"
        return "introduced itself as \(TextSanitizer.quoted(claimedName)), \(what) — "
            + "it may be someone else; compare safety numbers (confab verify \(id.shortHex))"
    }
}
