import ConfabCrypto

/// A node's identity on the network: its Ed25519 public key. Written as 64 lowercase hex
/// characters; people can type any unique prefix of it.
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let length = 32

    public let bytes: [UInt8]

    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = Array(bytes)
    }

    public init?(hex: String) {
        guard let decoded = Hex.decode(hex) else { return nil }
        self.init(bytes: decoded)
    }

    public init(_ key: SigningPublicKey) {
        bytes = key.bytes
    }

    public var hex: String { Hex.encode(bytes) }

    /// The first 8 hex characters: enough to tell peers apart in a list.
    public var shortHex: String { String(hex.prefix(8)) }

    /// A fingerprint grouped for reading aloud: `a1b2 c3d4 e5f6 …` (16 groups of 4).
    public var fingerprint: String {
        stride(from: 0, to: 64, by: 4).map { i in
            let start = hex.index(hex.startIndex, offsetBy: i)
            return String(hex[start..<hex.index(start, offsetBy: 4)])
        }.joined(separator: " ")
    }

    public var signingKey: SigningPublicKey { try! SigningPublicKey(bytes: bytes) }

    public var description: String { hex }

    public static func < (lhs: NodeID, rhs: NodeID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

extension NodeID: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = NodeID(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a node id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
