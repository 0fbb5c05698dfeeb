import CSodium

/// An Ed25519 key pair. The secret half lives in `SecureBytes` (64 bytes, libsodium's
/// seed ‖ public key form).
public struct SigningKeyPair: Sendable {
    public static let seedLength = Int(crypto_sign_SEEDBYTES)
    public static let secretKeyLength = Int(crypto_sign_SECRETKEYBYTES)

    public let publicKey: SigningPublicKey
    public let secretKey: SecureBytes

    public static func generate() -> SigningKeyPair {
        Sodium.ensureInitialized()
        var pk = [UInt8](repeating: 0, count: SigningPublicKey.length)
        let sk = SecureBytes(count: secretKeyLength) { crypto_sign_keypair(&pk, $0) }
        return SigningKeyPair(publicKey: try! SigningPublicKey(bytes: pk), secretKey: sk)
    }

    public init(seed: some Collection<UInt8>) throws(CryptoError) {
        Sodium.ensureInitialized()
        try requireLength(seed, Self.seedLength, "Ed25519 seed")
        var pk = [UInt8](repeating: 0, count: SigningPublicKey.length)
        let seedBytes = Array(seed)
        let sk = SecureBytes(count: Self.secretKeyLength) { crypto_sign_seed_keypair(&pk, $0, seedBytes) }
        self.init(publicKey: try SigningPublicKey(bytes: pk), secretKey: sk)
    }

    /// From libsodium's 64-byte secret key (seed ‖ public key); checks the halves agree.
    public init(secretKey: some Collection<UInt8>) throws(CryptoError) {
        try requireLength(secretKey, Self.secretKeyLength, "Ed25519 secret key")
        let bytes = Array(secretKey)
        try self.init(seed: bytes[0..<Self.seedLength])
        guard publicKey.bytes[...] == bytes[Self.seedLength...] else {
            throw .invalidKey("Ed25519 secret key does not match its public half")
        }
    }

    public init(publicKey: SigningPublicKey, secretKey: SecureBytes) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The 32-byte seed, from which the whole pair can be rebuilt (what the key file holds).
    public var seed: SecureBytes {
        secretKey.withUnsafeBytes { SecureBytes($0.prefix(Self.seedLength)) }
    }

    public func sign(_ message: some ContiguousBytes) -> [UInt8] {
        Sodium.ensureInitialized()
        var signature = [UInt8](repeating: 0, count: SigningPublicKey.signatureLength)
        withBytePointer(message) { msg, n in
            secretKey.withUnsafeBytes { sk in
                _ = crypto_sign_detached(
                    &signature, nil, msg, UInt64(n), sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return signature
    }

    /// The Curve25519 form of the secret key, for opening sealed boxes addressed to us.
    public func curve25519SecretKey() -> SecureBytes {
        Sodium.ensureInitialized()
        return secretKey.withUnsafeBytes { sk in
            SecureBytes(count: Int(crypto_scalarmult_curve25519_BYTES)) {
                _ = crypto_sign_ed25519_sk_to_curve25519($0, sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
    }
}
