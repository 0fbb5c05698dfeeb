import CSodium

public enum Hash {
    public static let sha256Length = Int(crypto_hash_sha256_BYTES)

    public static func sha256(_ data: some ContiguousBytes) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: sha256Length)
        withBytePointer(data) { input, n in _ = crypto_hash_sha256(&out, input, UInt64(n)) }
        return out
    }

    /// BLAKE2b with a digest of `length` bytes (16…64), optionally keyed.
    public static func blake2b(_ data: some ContiguousBytes, length: Int = 32, key: [UInt8]? = nil) -> [UInt8] {
        Sodium.ensureInitialized()
        precondition(length >= Int(crypto_generichash_BYTES_MIN) && length <= Int(crypto_generichash_BYTES_MAX))
        var out = [UInt8](repeating: 0, count: length)
        withBytePointer(data) { input, n in
            _ = crypto_generichash(&out, length, input, UInt64(n), key, key?.count ?? 0)
        }
        return out
    }
}

/// Byte collections that expose contiguous storage; lets hashing take arrays and slices alike.
public protocol ContiguousBytes {
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: ContiguousBytes where Element == UInt8 {}
extension ArraySlice: ContiguousBytes where Element == UInt8 {}
