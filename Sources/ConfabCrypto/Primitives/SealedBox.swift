import CSodium

/// Anonymous sealed boxes (`crypto_box_seal`) addressed to an Ed25519 identity through
/// its Curve25519 form, or to a person's X25519 encryption key. Used to hand a conversation
/// key to each participant.
public enum SealedBox {
    public static let overhead = Int(crypto_box_sealbytes())

    public static func seal(_ plaintext: [UInt8], to recipient: SigningPublicKey) throws(CryptoError) -> [UInt8] {
        try seal(plaintext, toExchangeKey: try recipient.curve25519())
    }

    /// Sealed to an X25519 key directly: a person's encryption key (Protocol.md §20.12),
    /// which every device of the person holds and no Ed25519 key converts to.
    public static func seal(_ plaintext: [UInt8], toExchangeKey publicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        try requireLength(publicKey, ScalarMult.pointLength, "X25519 public key")
        var out = [UInt8](repeating: 0, count: plaintext.count + overhead)
        guard crypto_box_seal(&out, plaintext, UInt64(plaintext.count), publicKey) == 0 else {
            throw .operationFailed("sealed box")
        }
        return out
    }

    public static func open(_ sealed: [UInt8], with keyPair: SigningKeyPair) throws(CryptoError) -> SecureBytes {
        try open(sealed, with: Curve25519KeyPair(secretKey: keyPair.curve25519SecretKey()))
    }

    /// Opened with an X25519 key pair: an identity's converted key, or a person's encryption key.
    public static func open(_ sealed: [UInt8], with keyPair: Curve25519KeyPair) throws(CryptoError) -> SecureBytes {
        Sodium.ensureInitialized()
        guard sealed.count >= overhead else { throw .authenticationFailed("sealed box") }
        var ok = false
        let opened = SecureBytes(count: sealed.count - overhead) { out in
            ok = keyPair.secretKey.withUnsafeBytes { sk in
                crypto_box_seal_open(
                    out, sealed, UInt64(sealed.count), keyPair.publicKey,
                    sk.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
            }
        }
        guard ok else { throw .authenticationFailed("sealed box") }
        return opened
    }
}
