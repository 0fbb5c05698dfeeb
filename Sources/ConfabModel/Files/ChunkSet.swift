/// Which chunks of a file are held: a bitmap, bit `i` of byte `i / 8` (least significant
/// first), the form `FileHave` carries (Protocol.md §17.4).
public struct ChunkSet: Sendable, Equatable {
    public private(set) var bytes: [UInt8]
    public let count: Int
    public private(set) var heldCount = 0

    public init(count: Int) {
        self.count = count
        bytes = [UInt8](repeating: 0, count: (count + 7) / 8)
    }

    /// From a bitmap: bits at or beyond `count` are ignored, missing bytes are zero.
    public init(count: Int, bitmap: some Collection<UInt8>) {
        self.init(count: count)
        for (index, byte) in bitmap.prefix(bytes.count).enumerated() { bytes[index] = byte }
        if count % 8 != 0, !bytes.isEmpty { bytes[bytes.count - 1] &= UInt8((1 << (count % 8)) - 1) }
        heldCount = bytes.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    public static func full(count: Int) -> ChunkSet {
        var set = ChunkSet(count: count)
        for index in 0..<count { set.insert(index) }
        return set
    }

    public func contains(_ index: Int) -> Bool {
        guard index >= 0, index < count else { return false }
        return bytes[index >> 3] & (1 << UInt8(index & 7)) != 0
    }

    public mutating func insert(_ index: Int) {
        guard index >= 0, index < count, !contains(index) else { return }
        bytes[index >> 3] |= 1 << UInt8(index & 7)
        heldCount += 1
    }

    public var isComplete: Bool { heldCount == count }

    /// Indices not held, in order.
    public var missing: [Int] { (0..<count).filter { !contains($0) } }

    /// The bitmap without trailing zero bytes: what goes on the wire.
    public var trimmedBytes: [UInt8] {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        return Array(bytes[..<end])
    }
}
