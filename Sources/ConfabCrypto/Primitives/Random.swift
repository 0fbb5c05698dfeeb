import CSodium

public enum Random {
    /// Cryptographically secure random bytes from libsodium's CSPRNG.
    public static func bytes(_ count: Int) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        out.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return out
    }
}
