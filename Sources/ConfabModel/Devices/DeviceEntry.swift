/// One entry of a person's device list (Protocol.md §20), decoded and its signature checked
/// by the person's key (ConfabWire's `DeviceEntryCodec`). `content` and `signature` are the
/// exact bytes received; the entry is never re-encoded.
public struct DeviceEntry: Sendable, Equatable {
    /// The person's key P, which signed the entry.
    public let person: NodeID
    public let seq: UInt64
    /// Hash of the entry `seq - 1`; nil exactly when `seq == 1`.
    public let previous: EntryHash?
    /// The person's wall clock, milliseconds since the Unix epoch: shown, never compared.
    public let timestamp: Int64
    /// The person's encryption key after this entry, and its secret wrapped to the devices.
    public let keys: DeviceKeys
    public let change: DeviceChange
    public let content: [UInt8]
    public let signature: [UInt8]
    public let hash: EntryHash

    public init(
        person: NodeID, seq: UInt64, previous: EntryHash?, timestamp: Int64, keys: DeviceKeys, change: DeviceChange,
        content: [UInt8], signature: [UInt8]
    ) {
        self.person = person
        self.seq = seq
        self.previous = previous
        self.timestamp = timestamp
        self.keys = keys
        self.change = change
        self.content = content
        self.signature = signature
        self.hash = EntryHash.of(content: content)
    }
}

/// What a device-list entry changes: exactly one device added, removed or renamed.
public enum DeviceChange: Sendable, Equatable {
    case add(device: NodeID, name: String)
    /// `cuts`: per conversation, the last seq of the device's log that stays valid.
    case remove(device: NodeID, cuts: [DeviceCut])
    /// A device of the person now (the person's own key included) gets a new name; the
    /// device set, and so the encryption key, stay as they are.
    case rename(device: NodeID, name: String)

    public var device: NodeID {
        switch self {
        case .add(let device, _), .remove(let device, _), .rename(let device, _): return device
        }
    }
}

/// Where a removed device's log in one conversation stops counting: entries up to
/// `lastSeq` stay valid, later ones are refused whatever their timestamps.
public struct DeviceCut: Sendable, Hashable {
    public let conversation: ConversationID
    public let lastSeq: UInt64

    public init(conversation: ConversationID, lastSeq: UInt64) {
        self.conversation = conversation
        self.lastSeq = lastSeq
    }
}

/// The person's X25519 encryption key E after an entry, and E's secret wrapped to each
/// device of the person after it (Protocol.md §20.5): the person first, then the listed
/// devices in the order they were added.
public struct DeviceKeys: Sendable, Equatable {
    public static let keyLength = 32
    public static let wrapLength = 32

    public let encryptionKey: [UInt8]
    /// The entry's X25519 public key, under which the wraps were made.
    public let ephemeral: [UInt8]
    public let wraps: [UInt8]

    public init(encryptionKey: [UInt8], ephemeral: [UInt8], wraps: [UInt8]) {
        self.encryptionKey = encryptionKey
        self.ephemeral = ephemeral
        self.wraps = wraps
    }

    /// How many devices the wraps are for.
    public var wrapCount: Int { wraps.count / Self.wrapLength }
}

/// A device of a person: the person's own key (first, never named in the list), or a key
/// the list added and has not removed.
public struct Device: Sendable, Equatable {
    public let key: NodeID
    /// The name the person gave it (the last rename's, or the add's); nil for the person's
    /// own key until a rename names it.
    public let name: String?
    /// The seq of the entry that added it; 0 for the person's own key.
    public let addedAt: UInt64

    public init(key: NodeID, name: String?, addedAt: UInt64) {
        self.key = key
        self.name = name
        self.addedAt = addedAt
    }
}

/// A device the list removed, and what of its logs stays valid.
public struct DeviceRemoval: Sendable, Equatable {
    public let device: NodeID
    /// The seq of the entry that removed it.
    public let removedAt: UInt64
    public let cuts: [ConversationID: UInt64]

    public init(device: NodeID, removedAt: UInt64, cuts: [ConversationID: UInt64]) {
        self.device = device
        self.removedAt = removedAt
        self.cuts = cuts
    }

    /// The last seq of the device's log in `conversation` that stays valid: 0 (nothing) for a
    /// conversation the removal does not name.
    public func lastValidSeq(in conversation: ConversationID) -> UInt64 { cuts[conversation] ?? 0 }
}
