import CSodium

/// XChaCha20-Poly1305 (IETF). A fresh random 24-byte nonce per message is safe with this
/// construction, which is why Confab uses it for message bodies under a long-lived key.
public enum AEAD {
    public static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    public static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    public static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    public static func generateKey() -> SecureBytes {
        Sodium.ensureInitialized()
        return SecureBytes(count: keyLength) { crypto_aead_xchacha20poly1305_ietf_keygen($0) }
    }

    /// Returns `nonce ‖ ciphertext ‖ tag`.
    public static func seal(
        _ plaintext: [UInt8], key: SecureBytes, additionalData: [UInt8] = [], nonce: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        let nonce = nonce ?? Random.bytes(nonceLength)
        return nonce + (try encrypt(plaintext, key: key, nonce: nonce, additionalData: additionalData))
    }

    /// Opens `nonce ‖ ciphertext ‖ tag`.
    public static func open(
        _ sealed: some ContiguousBytes, key: SecureBytes, additionalData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        let bytes = sealed.withUnsafeBytes { Array($0) }
        guard bytes.count >= nonceLength + tagLength else { throw .authenticationFailed("AEAD ciphertext") }
        return try decrypt(
            bytes[nonceLength...], key: key, nonce: Array(bytes[..<nonceLength]), additionalData: additionalData)
    }

    /// `ciphertext ‖ tag` under a nonce the caller derives (each (key, nonce) pair used for
    /// one plaintext only): file chunks, whose nonces follow from their index.
    public static func encrypt(
        _ plaintext: some ContiguousBytes, key: SecureBytes, nonce: [UInt8], additionalData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        guard key.count == keyLength else { throw .invalidLength("AEAD key", expected: keyLength, actual: key.count) }
        try requireLength(nonce, nonceLength, "AEAD nonce")
        let result: [UInt8]? = plaintext.withUnsafeBytes { p in
            var out = [UInt8](repeating: 0, count: p.count + tagLength)
            var written: UInt64 = 0
            let rc = key.withUnsafeBytes { k in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &out, &written, p.bindMemory(to: UInt8.self).baseAddress, UInt64(p.count),
                    additionalData, UInt64(additionalData.count), nil, nonce,
                    k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            return rc == 0 ? out : nil
        }
        guard let result else { throw .operationFailed("AEAD encryption") }
        return result
    }

    /// Opens `ciphertext ‖ tag` made by `encrypt`.
    public static func decrypt(
        _ ciphertext: some ContiguousBytes, key: SecureBytes, nonce: [UInt8], additionalData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        guard key.count == keyLength else { throw .invalidLength("AEAD key", expected: keyLength, actual: key.count) }
        try requireLength(nonce, nonceLength, "AEAD nonce")
        let result: [UInt8]? = ciphertext.withUnsafeBytes { c in
            guard c.count >= tagLength else { return nil }
            var out = [UInt8](repeating: 0, count: c.count - tagLength)
            var written: UInt64 = 0
            let rc = key.withUnsafeBytes { k in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    &out, &written, nil, c.bindMemory(to: UInt8.self).baseAddress!, UInt64(c.count),
                    additionalData, UInt64(additionalData.count), nonce,
                    k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            return rc == 0 ? out : nil
        }
        guard let result else { throw .authenticationFailed("AEAD ciphertext") }
        return result
    }
}
