import ConfabCrypto

/// A node's identity on the network: its Ed25519 public key. Written as 64 lowercase hex
/// characters; people can type any unique prefix of it.
public struct NodeID: ByteIdentifier {
    public static let length = 32

    public let bytes: [UInt8]

    public init(validatedBytes: [UInt8]) {
        bytes = validatedBytes
    }

    public init(_ key: SigningPublicKey) {
        bytes = key.bytes
    }

    /// A fingerprint grouped for reading aloud: `a1b2 c3d4 e5f6 …` (16 groups of 4).
    public var fingerprint: String {
        let hex = Array(self.hex)
        return stride(from: 0, to: hex.count, by: 4).map { String(hex[$0..<$0 + 4]) }.joined(separator: " ")
    }

    /// Reads a key written as `fingerprint` writes it (hex in groups separated by spaces),
    /// or as plain hex; nil unless the digits, spaces aside, are a whole key.
    public init?(fingerprint: String) {
        self.init(hex: String(fingerprint.filter { !$0.isWhitespace }))
    }

    public var signingKey: SigningPublicKey { try! SigningPublicKey(bytes: bytes) }
}
