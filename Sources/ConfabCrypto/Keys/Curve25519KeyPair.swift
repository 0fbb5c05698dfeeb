import CSodium

/// An X25519 key pair, used for the handshake's ephemeral keys. Generated fresh per
/// connection; the secret half never leaves `SecureBytes`.
public struct Curve25519KeyPair: Sendable {
    public let publicKey: [UInt8]
    public let secretKey: SecureBytes

    public static func generate() -> Curve25519KeyPair {
        Sodium.ensureInitialized()
        var pk = [UInt8](repeating: 0, count: ScalarMult.pointLength)
        let sk = SecureBytes(count: ScalarMult.scalarLength) { _ = crypto_box_keypair(&pk, $0) }
        return Curve25519KeyPair(checkedPublicKey: pk, secretKey: sk)
    }

    /// Rebuilds the pair from its secret half (tests inject fixed ephemeral keys this way).
    public init(secretKey: some Collection<UInt8>) throws(CryptoError) {
        try requireLength(secretKey, ScalarMult.scalarLength, "X25519 secret key")
        let sk = SecureBytes(secretKey)
        self.init(checkedPublicKey: try ScalarMult.basePoint(secretKey: sk), secretKey: sk)
    }

    /// From a secret held in guarded memory, such as a converted Ed25519 key.
    public init(secretKey: SecureBytes) throws(CryptoError) {
        self.init(checkedPublicKey: try ScalarMult.basePoint(secretKey: secretKey), secretKey: secretKey)
    }

    private init(checkedPublicKey: [UInt8], secretKey: SecureBytes) {
        self.publicKey = checkedPublicKey
        self.secretKey = secretKey
    }
}
