/// Where one of my messages stands, as the sender sees it.
public enum DeliveryStatus: String, Sendable, Codable, Comparable, CaseIterable {
    /// Only in my store.
    case sending
    /// At least one other node (a participant or a relay) holds it.
    case sent
    /// Every other participant's delivered receipt covers it.
    case delivered
    /// Every other participant's read receipt covers it.
    case read

    private var rank: Int {
        switch self {
        case .sending: return 0
        case .sent: return 1
        case .delivered: return 2
        case .read: return 3
        }
    }

    public static func < (a: DeliveryStatus, b: DeliveryStatus) -> Bool { a.rank < b.rank }

    /// Derives the status of `author`'s entry `seq` from what is known: whether any other
    /// node acknowledged holding it, and each other participant's latest receipt clocks.
    /// A read receipt implies delivery, and a delivered receipt implies someone holds it.
    public static func of(
        author: NodeID, seq: UInt64, otherParticipants: [NodeID], heldElsewhere: Bool,
        receipts: [NodeID: ReceiptClocks]
    ) -> DeliveryStatus {
        guard !otherParticipants.isEmpty else { return heldElsewhere ? .sent : .sending }
        let reads = otherParticipants.map { receipts[$0]?.read.covers(author: author, seq: seq) ?? false }
        if reads.allSatisfy({ $0 }) { return .read }
        let delivered = otherParticipants.map { id in
            guard let r = receipts[id] else { return false }
            return r.delivered.covers(author: author, seq: seq) || r.read.covers(author: author, seq: seq)
        }
        if delivered.allSatisfy({ $0 }) { return .delivered }
        if heldElsewhere || delivered.contains(true) || reads.contains(true) { return .sent }
        return .sending
    }
}

/// A participant's latest receipt: what it has stored and what it has read.
public struct ReceiptClocks: Sendable, Equatable, Codable {
    public var delivered: VectorClock
    public var read: VectorClock

    public init(delivered: VectorClock = VectorClock(), read: VectorClock = VectorClock()) {
        self.delivered = delivered
        self.read = read
    }

    /// Receipts are coalesced and may arrive out of order through relays, so the newest
    /// knowledge is the pointwise maximum of everything seen.
    public func merging(_ other: ReceiptClocks) -> ReceiptClocks {
        ReceiptClocks(delivered: delivered.merging(other.delivered), read: read.merging(other.read))
    }
}
