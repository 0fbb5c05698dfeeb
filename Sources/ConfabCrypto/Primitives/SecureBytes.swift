import CSodium

/// Secret key material. The buffer is wiped with `sodium_memzero` when the last reference
/// goes away, so secrets do not linger in freed heap memory.
public final class SecureBytes: @unchecked Sendable {
    // @unchecked: the storage is written only during init, then read-only.
    private let storage: UnsafeMutableRawPointer
    public let count: Int

    public init(count: Int) {
        Sodium.ensureInitialized()
        self.count = count
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        sodium_memzero(storage, max(count, 1))
    }

    public convenience init(_ bytes: some Collection<UInt8>) {
        self.init(count: bytes.count)
        var offset = 0
        for byte in bytes {
            storage.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
    }

    /// Lets `body` write the secret straight into the guarded buffer (key generation).
    public convenience init(count: Int, initializingWith body: (UnsafeMutablePointer<UInt8>) -> Void) {
        self.init(count: count)
        body(storage.assumingMemoryBound(to: UInt8.self))
    }

    deinit {
        sodium_memzero(storage, max(count, 1))
        storage.deallocate()
    }

    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// Copies the secret out, for the few places a value must leave the guarded buffer
    /// (writing a key file, handing a key to the store); the caller wipes the copy.
    public var unsafeCopy: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Constant-time comparison.
    public func isEqual(to other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { a in
            other.withUnsafeBytes { b in sodium_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}

extension Array where Element == UInt8 {
    /// Overwrites the array's storage with zeros (for transient copies of secrets).
    public mutating func wipe() {
        withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }
}
