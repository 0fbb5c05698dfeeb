import CSodium

/// Incremental SHA-256. The handshake hashes concatenations of shared secrets; feeding the
/// pieces one by one avoids building a concatenated copy of them that would need wiping.
/// Files are hashed the same way, chunk by chunk.
public struct SHA256Hasher {
    private var state = crypto_hash_sha256_state()

    public init() {
        Sodium.ensureInitialized()
        crypto_hash_sha256_init(&state)
    }

    public mutating func update(_ bytes: some ContiguousBytes) {
        withBytePointer(bytes) { p, n in _ = crypto_hash_sha256_update(&state, p, UInt64(n)) }
    }

    mutating func update(_ secret: SecureBytes) {
        secret.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return }
            _ = crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(raw.count))
        }
    }

    /// Finishes the digest of public data (a file's content).
    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Hash.sha256Length)
        crypto_hash_sha256_final(&state, &digest)
        return digest
    }

    /// Finishes into guarded memory and wipes the intermediate state, which is as sensitive
    /// as its input.
    mutating func finalizeSecret() -> SecureBytes {
        let digest = SecureBytes(count: Hash.sha256Length) { out in _ = crypto_hash_sha256_final(&state, out) }
        withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
        return digest
    }

    static func secretDigest(_ parts: SecureBytes...) -> SecureBytes {
        var hasher = SHA256Hasher()
        for part in parts { hasher.update(part) }
        return hasher.finalizeSecret()
    }
}
