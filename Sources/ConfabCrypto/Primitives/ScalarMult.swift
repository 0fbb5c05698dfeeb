import CSodium

/// X25519 (`crypto_scalarmult`): the Diffie-Hellman step the secret handshake runs three times.
public enum ScalarMult {
    public static let scalarLength = Int(crypto_scalarmult_SCALARBYTES)
    public static let pointLength = Int(crypto_scalarmult_BYTES)

    /// The shared secret of `secretKey` and `publicKey`. libsodium refuses points of small
    /// order (the result would be all zeros, known to an attacker), so a malicious peer cannot
    /// force a predictable secret; that refusal surfaces here as `invalidKey`.
    public static func sharedSecret(
        secretKey: SecureBytes, publicKey: some Collection<UInt8>
    ) throws(CryptoError) -> SecureBytes {
        Sodium.ensureInitialized()
        guard secretKey.count == scalarLength else {
            throw .invalidLength("X25519 secret key", expected: scalarLength, actual: secretKey.count)
        }
        try requireLength(publicKey, pointLength, "X25519 public key")
        let point = Array(publicKey)
        var rc: Int32 = 0
        let shared = SecureBytes(count: pointLength) { out in
            rc = secretKey.withUnsafeBytes { sk in
                crypto_scalarmult(out, sk.baseAddress!.assumingMemoryBound(to: UInt8.self), point)
            }
        }
        guard rc == 0 else { throw .invalidKey("X25519 public key of small order") }
        return shared
    }

    /// The public point for `secretKey`.
    public static func basePoint(secretKey: SecureBytes) throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        guard secretKey.count == scalarLength else {
            throw .invalidLength("X25519 secret key", expected: scalarLength, actual: secretKey.count)
        }
        var out = [UInt8](repeating: 0, count: pointLength)
        let rc = secretKey.withUnsafeBytes { sk in
            crypto_scalarmult_base(&out, sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard rc == 0 else { throw .invalidKey("X25519 secret key") }
        return out
    }
}
