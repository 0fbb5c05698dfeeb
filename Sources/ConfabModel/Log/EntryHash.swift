import ConfabCrypto

/// BLAKE2b-256 of an entry's signed content bytes; links each entry to its author's
/// previous one.
public struct EntryHash: Hashable, Sendable, CustomStringConvertible {
    public static let length = 32
    public let bytes: [UInt8]

    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = Array(bytes)
    }

    public static func of(content: [UInt8]) -> EntryHash {
        EntryHash(bytes: Hash.blake2b(content, length: length))!
    }

    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }

    /// The first 8 bytes as one word, as `ByteIdentifier` does (a batch looks every entry's
    /// hash up a few times, `ChainAnchors`): BLAKE2b output is uniform, and the hasher's seed
    /// is random per process.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(leadingWord(bytes))
    }
}
