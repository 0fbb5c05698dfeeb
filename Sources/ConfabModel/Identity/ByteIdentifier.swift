import ConfabCrypto

/// A fixed-length identifier made of bytes and written as lowercase hex (node keys,
/// conversation ids): one implementation of parsing, printing and JSON for all of them.
public protocol ByteIdentifier: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    static var length: Int { get }
    var bytes: [UInt8] { get }
    /// Wraps bytes already known to have `length` bytes.
    init(validatedBytes: [UInt8])
}

extension ByteIdentifier {
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.length else { return nil }
        self.init(validatedBytes: Array(bytes))
    }

    public init?(hex: String) {
        guard let decoded = Hex.decode(hex) else { return nil }
        self.init(bytes: decoded)
    }

    public var hex: String { Hex.encode(bytes) }
    /// The first 8 hex characters: enough to tell items apart in a list.
    public var shortHex: String { String(hex.prefix(8)) }
    public var description: String { hex }

    /// The first 8 bytes go to the hasher as one word: keys and conversation ids are looked
    /// up in dictionaries several times for every entry a node takes in, and hashing all
    /// their bytes was a measurable share of that. Keys, and ids derived from them by a
    /// hash, are uniform, and the hasher's seed is random per process, so nobody can aim
    /// two ids at one bucket without finding 8 equal bytes of them (2^64 tries); equality
    /// still compares every byte.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(leadingWord(bytes))
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = Self(hex: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not \(Self.length) bytes of hex"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// The first 8 bytes as a word (all of them, zero-padded, when there are fewer): what the
/// model's byte values give the hasher.
func leadingWord(_ bytes: [UInt8]) -> UInt64 {
    bytes.withUnsafeBytes { raw in
        guard raw.count >= 8 else { return raw.reduce(0) { $0 << 8 | UInt64($1) } }
        return raw.loadUnaligned(as: UInt64.self)
    }
}
