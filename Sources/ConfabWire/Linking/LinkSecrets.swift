import ConfabCrypto
import ConfabModel

/// What both sides derive from a link code (Protocol.md §20.10): the network key of the
/// offer's handshake and the offer's own Ed25519 key pair, so a new machine knows the key
/// it must reach from the code alone. Argon2id makes each guess of a recorded handshake's
/// code cost a fraction of a second and 64 MiB.
public struct LinkSecrets: Sendable {
    static let salt: [UInt8] = Array("confab/link/v1".utf8) + [0, 0]
    public static let opsLimit: UInt64 = 2
    public static let memLimit = 67_108_864

    public let networkKey: NetworkKey
    public let offerKey: SigningKeyPair

    public var offer: NodeID { NodeID(offerKey.publicKey) }

    public init(code: LinkCode) throws(CryptoError) {
        let derived = try PasswordHash.argon2id(
            Array(code.symbols.utf8), salt: Self.salt, outputLength: 64, opsLimit: Self.opsLimit,
            memLimit: Self.memLimit)
        var bytes = derived.unsafeCopy
        defer { bytes.wipe() }
        networkKey = NetworkKey(bytes: Array(bytes[0..<32]))!
        offerKey = try SigningKeyPair(seed: bytes[32..<64])
    }
}
