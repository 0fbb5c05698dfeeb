import ConfabCrypto

/// What two people compare, out of band, to know that each holds the other's real key
/// (Protocol.md §2.1). It depends on both keys and not on who computes it, so both
/// machines show the same 60 digits; it changes when either key changes.
public struct SafetyNumber: Sendable, Equatable, CustomStringConvertible {
    /// Keeps the digest from colliding with any other use of the same hash over the same keys.
    public static let domain = "confab/safety-number/v1"
    public static let groupCount = 12
    public static let digitsPerGroup = 5

    /// 12 groups of 5 decimal digits.
    public let groups: [String]

    public init(_ a: NodeID, _ b: NodeID) {
        let (low, high) = a < b ? (a, b) : (b, a)
        let digest = Hash.blake2b(Array(Self.domain.utf8) + [0] + low.bytes + high.bytes, length: 64)
        // 5 bytes (40 bits) per group reduced mod 100000: the bias of about 1e-7 per group
        // is far below what a person comparing digits could notice or an attacker exploit.
        groups = (0..<Self.groupCount).map { index in
            let value = digest[index * 5..<index * 5 + 5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let text = String(value % 100_000)
            return String(repeating: "0", count: Self.digitsPerGroup - text.count) + text
        }
    }

    /// The 60 digits without separators, for comparing what a person typed.
    public var digits: String { groups.joined() }

    /// Three lines of four groups, the way people read it aloud.
    public var lines: [String] {
        stride(from: 0, to: groups.count, by: 4).map { groups[$0..<$0 + 4].joined(separator: " ") }
    }

    public var description: String { groups.joined(separator: " ") }
}
