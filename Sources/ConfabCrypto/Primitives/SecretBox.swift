import CSodium

/// `crypto_secretbox` (XSalsa20-Poly1305) with a caller-chosen nonce. The handshake and
/// box-stream derive their nonces deterministically, so unlike `AEAD` nothing here picks one.
public enum SecretBox {
    public static let keyLength = Int(crypto_secretbox_KEYBYTES)
    public static let nonceLength = Int(crypto_secretbox_NONCEBYTES)
    public static let macLength = Int(crypto_secretbox_MACBYTES)

    /// Returns `mac ‖ ciphertext` (libsodium's "easy" layout).
    public static func seal(
        _ plaintext: some ContiguousBytes, nonce: [UInt8], key: SecureBytes
    ) throws(CryptoError) -> [UInt8] {
        try check(nonce: nonce, key: key)
        return withBytePointer(plaintext) { m, n in
            var out = [UInt8](repeating: 0, count: n + macLength)
            withKey(key) { k in _ = crypto_secretbox_easy(&out, m, UInt64(n), nonce, k) }
            return out
        }
    }

    /// Opens `mac ‖ ciphertext`.
    public static func open(
        _ box: some ContiguousBytes, nonce: [UInt8], key: SecureBytes
    ) throws(CryptoError) -> [UInt8] {
        try check(nonce: nonce, key: key)
        let opened: [UInt8]? = withBytePointer(box) { c, n in
            guard n >= macLength else { return nil }
            // One spare byte so the output pointer is valid even for an empty plaintext.
            var out = [UInt8](repeating: 0, count: n - macLength + 1)
            let rc = withKey(key) { k in crypto_secretbox_open_easy(&out, c, UInt64(n), nonce, k) }
            out.removeLast()
            return rc == 0 ? out : nil
        }
        guard let opened else { throw .authenticationFailed("secretbox") }
        return opened
    }

    /// Returns the tag and the ciphertext separately; box-stream carries the tag in the header.
    public static func sealDetached(
        _ plaintext: some ContiguousBytes, nonce: [UInt8], key: SecureBytes
    ) throws(CryptoError) -> (mac: [UInt8], ciphertext: [UInt8]) {
        try check(nonce: nonce, key: key)
        return withBytePointer(plaintext) { m, n in
            var mac = [UInt8](repeating: 0, count: macLength)
            var out = [UInt8](repeating: 0, count: n + 1)
            withKey(key) { k in _ = crypto_secretbox_detached(&out, &mac, m, UInt64(n), nonce, k) }
            out.removeLast()
            return (mac, out)
        }
    }

    public static func openDetached(
        _ ciphertext: some ContiguousBytes, mac: [UInt8], nonce: [UInt8], key: SecureBytes
    ) throws(CryptoError) -> [UInt8] {
        try check(nonce: nonce, key: key)
        guard mac.count == macLength else { throw .authenticationFailed("secretbox") }
        let opened: [UInt8]? = withBytePointer(ciphertext) { c, n in
            var out = [UInt8](repeating: 0, count: n + 1)
            let rc = withKey(key) { k in crypto_secretbox_open_detached(&out, c, mac, UInt64(n), nonce, k) }
            out.removeLast()
            return rc == 0 ? out : nil
        }
        guard let opened else { throw .authenticationFailed("secretbox") }
        return opened
    }

    private static func check(nonce: [UInt8], key: SecureBytes) throws(CryptoError) {
        Sodium.ensureInitialized()
        try requireLength(nonce, nonceLength, "secretbox nonce")
        guard key.count == keyLength else {
            throw .invalidLength("secretbox key", expected: keyLength, actual: key.count)
        }
    }

    private static func withKey<R>(_ key: SecureBytes, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        key.withUnsafeBytes { body($0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    }
}
