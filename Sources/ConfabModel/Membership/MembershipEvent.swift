/// An entry that shapes a conversation's membership (Protocol.md §4.8): the create entry (the
/// first members, the first key epoch) or a members entry. What the fold needs of it, read
/// from its plaintext fields, so a relay computes the same membership as a member.
public struct MembershipEvent: Sendable, Equatable {
    /// The key that signed it: its log, seq and place in clocks.
    public let author: NodeID
    /// Who acted: the author's person (Protocol.md §20.11), the author itself unless it is a
    /// listed device. Every rule on who may change what asks this, never `author`.
    public let person: NodeID
    public let seq: UInt64
    /// Its place in the display order, with its own clock sum (§4.8.2).
    public let order: DisplayOrderKey
    /// The create entry's participants, or a members entry's `add`.
    public let add: [NodeID]
    public let remove: [NodeID]
    /// The keys the epoch it starts was sealed to; nil when it starts none (a leave).
    public let recipients: [NodeID]?
    /// Its clock with itself: a member it removes is sent the conversation up to here.
    public let frontier: VectorClock

    public init(
        author: NodeID, seq: UInt64, order: DisplayOrderKey, add: [NodeID], remove: [NodeID], recipients: [NodeID]?,
        frontier: VectorClock, person: NodeID? = nil
    ) {
        self.author = author
        self.person = person ?? author
        self.seq = seq
        self.order = order
        self.add = add
        self.remove = remove
        self.recipients = recipients
        self.frontier = frontier
    }

    public var ref: EntryRef { EntryRef(author: author, seq: seq) }

    /// A leave: its person removed, and nothing else.
    public var isLeave: Bool { remove == [person] && add.isEmpty && recipients == nil }

    /// Whether an entry whose causal clock is `clock` had seen this one.
    public func isCovered(by clock: VectorClock) -> Bool { clock[author] >= seq }
}

/// An entry's place in its conversation: its author's log and seq.
public struct EntryRef: Hashable, Sendable, Codable {
    public let author: NodeID
    public let seq: UInt64

    public init(author: NodeID, seq: UInt64) {
        self.author = author
        self.seq = seq
    }
}
