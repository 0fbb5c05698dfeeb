/// A change of a conversation's members (Protocol.md §4.8): keys added, keys removed (only
/// the admin removes others), a leave (the author's own key alone), or a rekey (neither).
/// Every change but a leave starts a key epoch: `keys` seals a fresh key to every member
/// after the change.
public struct MembersBody: Sendable, Equatable {
    /// Earlier epoch keys for one added member, sealed to it alone (`add --history`).
    public struct SharedHistory: Sendable, Equatable {
        public let member: NodeID
        public let sealed: [UInt8]

        public init(member: NodeID, sealed: [UInt8]) {
            self.member = member
            self.sealed = sealed
        }
    }

    public let add: [NodeID]
    public let remove: [NodeID]
    /// The new epoch's key sealed to each member after the change; empty for a leave.
    public let keys: [CreateBody.Participant]
    /// Commitment to the new key at this entry's position; empty for a leave.
    public let keyCommitment: [UInt8]
    public let sealedNames: [UInt8]
    public let history: [SharedHistory]
    /// A large group's new key, wrapped (Protocol.md §19.3): to the keys of `add` for an add
    /// (whose key is derived from the one in force), else to every member after the change.
    public let wrapped: WrappedKeys?

    public init(
        add: [NodeID] = [], remove: [NodeID] = [], keys: [CreateBody.Participant] = [], keyCommitment: [UInt8] = [],
        sealedNames: [UInt8] = [], history: [SharedHistory] = [], wrapped: WrappedKeys? = nil
    ) {
        self.add = add
        self.remove = remove
        self.keys = keys
        self.keyCommitment = keyCommitment
        self.sealedNames = sealedNames
        self.history = history
        self.wrapped = wrapped
    }

    /// A leave carries no key: the member leaving must not choose the next one.
    public var startsEpoch: Bool { !keys.isEmpty || wrapped != nil }

    /// A large group's add: its key derives from the key in force, and only the added keys
    /// are wrapped to (Protocol.md §19.3).
    public var derivesKey: Bool { wrapped != nil && remove.isEmpty && !add.isEmpty }

    /// The keys the new epoch's key was sealed to, as far as the body alone says: nil for a
    /// leave, and for a large group's epoch (every member after the change, from the view).
    public var recipients: [NodeID]? { keys.isEmpty ? nil : keys.map(\.id) }
}

/// A key wrapped to a list of recipients in 32 bytes each, with the entry's ephemeral X25519
/// public key (Protocol.md §19.1).
public struct WrappedKeys: Sendable, Equatable {
    public static let wrapLength = 32
    public let ephemeral: [UInt8]
    /// `wrapLength` bytes per recipient, in the recipients' order.
    public let wraps: [UInt8]

    public init(ephemeral: [UInt8], wraps: [UInt8]) {
        self.ephemeral = ephemeral
        self.wraps = wraps
    }

    public var count: Int { wraps.count / Self.wrapLength }
}
