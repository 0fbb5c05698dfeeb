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

    public init(
        add: [NodeID] = [], remove: [NodeID] = [], keys: [CreateBody.Participant] = [], keyCommitment: [UInt8] = [],
        sealedNames: [UInt8] = [], history: [SharedHistory] = []
    ) {
        self.add = add
        self.remove = remove
        self.keys = keys
        self.keyCommitment = keyCommitment
        self.sealedNames = sealedNames
        self.history = history
    }

    /// A leave carries no key: the member leaving must not choose the next one.
    public var startsEpoch: Bool { !keys.isEmpty }

    /// The keys the new epoch's key was sealed to; nil for a leave.
    public var recipients: [NodeID]? { startsEpoch ? keys.map(\.id) : nil }
}
