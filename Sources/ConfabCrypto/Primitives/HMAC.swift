import CSodium

/// `crypto_auth`: HMAC-SHA-512 truncated to 256 bits, as the secret handshake uses it.
public enum HMAC {
    public static let keyLength = Int(crypto_auth_KEYBYTES)
    public static let tagLength = Int(crypto_auth_BYTES)

    public static func authenticate(_ message: some ContiguousBytes, key: [UInt8]) throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        try requireLength(key, keyLength, "HMAC key")
        var out = [UInt8](repeating: 0, count: tagLength)
        withBytePointer(message) { m, n in _ = crypto_auth(&out, m, UInt64(n), key) }
        return out
    }

    /// Constant-time verification of a tag.
    public static func verify(
        tag: some ContiguousBytes, message: some ContiguousBytes, key: [UInt8]
    ) throws(CryptoError) -> Bool {
        Sodium.ensureInitialized()
        try requireLength(key, keyLength, "HMAC key")
        return withBytePointer(tag) { t, tagCount in
            guard tagCount == tagLength else { return false }
            return withBytePointer(message) { m, n in crypto_auth_verify(t, m, UInt64(n), key) == 0 }
        }
    }
}
