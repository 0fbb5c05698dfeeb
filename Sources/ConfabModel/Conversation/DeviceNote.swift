/// A system line of a person's device list changing (Protocol.md §20): told in every
/// conversation with that person, so a device added or removed is never silent. It is
/// this node's own line, written when the list reached it; nothing of it travels.
public struct DeviceNote: Sendable, Equatable, Codable {
    public enum Change: String, Sendable, Equatable, Codable {
        case linked, removed, renamed
    }

    /// The person whose list changed, and the seq of the list entry that changed it.
    public let person: NodeID
    public let listSeq: UInt64
    public let change: Change
    public let device: NodeID
    /// The device's name in the list (for a rename, the new one).
    public let deviceName: String
    /// For a rename, the name before it; nil for the first machine's first name, and for
    /// the other changes.
    public let previousName: String?

    public init(
        person: NodeID, listSeq: UInt64, change: Change, device: NodeID, deviceName: String,
        previousName: String? = nil
    ) {
        self.person = person
        self.listSeq = listSeq
        self.change = change
        self.device = device
        self.deviceName = deviceName
        self.previousName = previousName
    }

    /// "Alice linked a new device: laptop (7c1e 2a9f)", "Alice renamed a device: laptop →
    /// work laptop (7c1e 2a9f)"; `person` is this node's name for them.
    public func sentence(by person: String) -> String {
        let device = "\(deviceName) (\(Self.shortFingerprint(self.device)))"
        switch change {
        case .linked: return "\(person) linked a new device: \(device)"
        case .removed: return "\(person) removed a device: \(device)"
        case .renamed:
            guard let previousName else { return "\(person) named a device: \(device)" }
            return "\(person) renamed a device: \(previousName) → \(device)"
        }
    }

    /// The first two groups of the key's fingerprint: enough to tell devices apart on screen.
    static func shortFingerprint(_ key: NodeID) -> String {
        key.fingerprint.split(separator: " ").prefix(2).joined(separator: " ")
    }
}
