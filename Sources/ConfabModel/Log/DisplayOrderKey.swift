/// The display order of entries in a conversation: a deterministic linear extension of
/// causality, so every node shows the same order. If B was written after its author held
/// A, B's clock covers A's clock plus A itself, so B's clock sum is strictly larger; ties
/// (concurrent entries) fall back to timestamp, then author key, then seq.
public struct DisplayOrderKey: Comparable, Hashable, Sendable, Codable {
    public let clockSum: UInt64
    public let timestamp: Int64
    public let author: NodeID
    public let seq: UInt64

    public init(clockSum: UInt64, timestamp: Int64, author: NodeID, seq: UInt64) {
        self.clockSum = clockSum
        self.timestamp = timestamp
        self.author = author
        self.seq = seq
    }

    public static func < (a: DisplayOrderKey, b: DisplayOrderKey) -> Bool {
        if a.clockSum != b.clockSum { return a.clockSum < b.clockSum }
        if a.timestamp != b.timestamp { return a.timestamp < b.timestamp }
        if a.author != b.author { return a.author < b.author }
        return a.seq < b.seq
    }
}
