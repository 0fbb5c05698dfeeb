import ConfabCrypto
import Foundation

/// The 32-byte key that separates Confab networks: the secret handshake's application key.
/// Nodes with different keys can neither complete a handshake nor see each other's
/// beacons (they carry only a tag derived from the key).
public struct NetworkKey: Sendable, Equatable {
    public static let length = 32

    /// The public default, `SHA-256("confab/default-network/v1")`; anyone can compute it, so
    /// it separates Confab from other protocols, not people from each other.
    public static let `default` = NetworkKey(
        unchecked: Hash.sha256(Array("confab/default-network/v1".utf8)))

    public let bytes: [UInt8]
    /// 8 bytes that identify the network in beacons without revealing the key:
    /// the first 8 bytes of HMAC-SHA-512-256(key, "confab/network-tag/v1"). Computed once:
    /// every beacon received is compared with it.
    public let tag: [UInt8]

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
        tag = Self.tag(of: bytes)
    }

    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.init(unchecked: bytes)
    }

    /// Parses 64 hex characters or standard base64 of 32 bytes.
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let hex = Hex.decode(trimmed), hex.count == Self.length {
            self.init(unchecked: hex)
        } else if let data = Data(base64Encoded: trimmed), data.count == Self.length {
            self.init(unchecked: [UInt8](data))
        } else {
            return nil
        }
    }

    public static func random() -> NetworkKey { NetworkKey(unchecked: Random.bytes(length)) }

    public var hex: String { Hex.encode(bytes) }
    public var base64: String { Data(bytes).base64EncodedString() }

    private static func tag(of key: [UInt8]) -> [UInt8] {
        Array(try! HMAC.authenticate(Array("confab/network-tag/v1".utf8), key: key).prefix(8))
    }
}
