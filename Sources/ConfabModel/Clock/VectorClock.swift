/// A conversation's vector clock: for each author, the highest sequence number such that
/// every entry 1…seq of that author is held. Absent authors are at 0.
public struct VectorClock: Hashable, Sendable {
    public private(set) var entries: [NodeID: UInt64]

    public init(_ entries: [NodeID: UInt64] = [:]) {
        self.entries = entries.filter { $0.value > 0 }
    }

    public subscript(author: NodeID) -> UInt64 {
        get { entries[author] ?? 0 }
        set { entries[author] = newValue == 0 ? nil : newValue }
    }

    public var isEmpty: Bool { entries.isEmpty }
    public var width: Int { entries.count }

    /// Total number of entries the clock covers; grows strictly along causality, which is
    /// what makes it the first key of the display order.
    public var sum: UInt64 { entries.values.reduce(0, &+) }

    /// Pointwise maximum.
    public func merging(_ other: VectorClock) -> VectorClock {
        VectorClock(entries.merging(other.entries, uniquingKeysWith: max))
    }

    public mutating func merge(_ other: VectorClock) {
        self = merging(other)
    }

    /// True when every author's seq here is at least the other's.
    public func covers(_ other: VectorClock) -> Bool {
        other.entries.allSatisfy { self[$0.key] >= $0.value }
    }

    public func covers(author: NodeID, seq: UInt64) -> Bool {
        self[author] >= seq
    }

    /// The authors whose seq here is above `earlier`'s: what a partial clock names
    /// (Protocol.md §10.2). Merged into `earlier`, it gives this clock back whenever this
    /// clock covers `earlier`.
    public func moved(since earlier: VectorClock) -> VectorClock {
        VectorClock(entries.filter { $0.value > earlier[$0.key] })
    }

    public func compare(_ other: VectorClock) -> ClockOrder {
        switch (covers(other), other.covers(self)) {
        case (true, true): return .equal
        case (true, false): return .after
        case (false, true): return .before
        case (false, false): return .concurrent
        }
    }

    /// Authors in a stable order, for encoding.
    public var sortedEntries: [(author: NodeID, seq: UInt64)] {
        entries.sorted { $0.key < $1.key }.map { (author: $0.key, seq: $0.value) }
    }
}

public enum ClockOrder: Sendable, Equatable {
    case before, equal, after, concurrent
}

extension VectorClock: Codable {
    /// Encoded as a JSON object `{ "<author hex>": seq }`, the form used in the store and
    /// on the control socket.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode([String: UInt64].self)
        var entries: [NodeID: UInt64] = [:]
        for (key, seq) in raw {
            guard let id = NodeID(hex: key) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "clock key \(key) is not a node id"))
            }
            entries[id] = seq
        }
        self.init(entries)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(uniqueKeysWithValues: entries.map { ($0.key.hex, $0.value) }))
    }
}
