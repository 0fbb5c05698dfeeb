import CSodium

/// Argon2id (libsodium's `crypto_pwhash`, ALG_ARGON2ID13): a hash made slow and memory-hard
/// on purpose, so that trying every value of a short secret against a recording costs
/// seconds per guess rather than nanoseconds.
public enum PasswordHash {
    public static let saltLength = Int(crypto_pwhash_saltbytes())

    /// `outputLength` bytes of Argon2id over `password` with a 16-byte `salt`, lanes 1.
    public static func argon2id(
        _ password: [UInt8], salt: [UInt8], outputLength: Int, opsLimit: UInt64, memLimit: Int
    ) throws(CryptoError) -> SecureBytes {
        Sodium.ensureInitialized()
        try requireLength(salt, saltLength, "Argon2id salt")
        guard !password.isEmpty else { throw .invalidLength("Argon2id password", expected: 1, actual: 0) }
        var failed = false
        let out = SecureBytes(count: outputLength) { out in
            failed =
                password.withUnsafeBufferPointer { input in
                    input.withMemoryRebound(to: CChar.self) { chars in
                        crypto_pwhash(
                            out, UInt64(outputLength), chars.baseAddress!, UInt64(password.count), salt, opsLimit,
                            memLimit, crypto_pwhash_alg_argon2id13())
                    }
                } != 0
        }
        if failed { throw .operationFailed("crypto_pwhash (out of memory?)") }
        return out
    }
}
