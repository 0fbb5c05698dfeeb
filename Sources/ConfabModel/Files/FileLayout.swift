/// How a file's content is cut into chunks (Protocol.md §17.1): `size` plaintext bytes in
/// chunks of `chunkSize`, each stored and sent as ciphertext 16 bytes longer. Everyone
/// holding the file entry knows it, relays too, so every chunk's length can be checked.
public struct FileLayout: Sendable, Hashable, Codable {
    /// The AEAD tag each encrypted chunk carries.
    public static let tagLength = 16
    public static let minChunkSize = 1 << 14
    public static let maxChunkSize = 1 << 19
    public static let maxChunks = 1 << 14
    /// The largest file the protocol can name: the most chunks of the largest size.
    public static let maxSize = UInt64(maxChunks) * UInt64(maxChunkSize)
    /// Bytes of one chunk name in the manifest.
    public static let chunkNameLength = 32

    public let size: UInt64
    public let chunkSize: Int

    /// Nil unless the chunk size is a power of two in range and the file needs at most
    /// `maxChunks` chunks.
    public init?(size: UInt64, chunkSize: UInt64) {
        guard chunkSize >= UInt64(Self.minChunkSize), chunkSize <= UInt64(Self.maxChunkSize),
            chunkSize & (chunkSize - 1) == 0, size <= UInt64(Self.maxChunks) * chunkSize
        else { return nil }
        self.size = size
        self.chunkSize = Int(chunkSize)
    }

    /// The chunk size this implementation picks: 256 KiB, or 512 KiB for a file too large
    /// for 16,384 of those. Nil for a file beyond the protocol's limit.
    public static func forSending(size: UInt64) -> FileLayout? {
        FileLayout(size: size, chunkSize: 1 << 18) ?? FileLayout(size: size, chunkSize: UInt64(maxChunkSize))
    }

    public var chunkCount: Int { Int((size + UInt64(chunkSize) - 1) / UInt64(chunkSize)) }

    /// Plaintext bytes of chunk `index`.
    public func plainLength(of index: Int) -> Int {
        let start = UInt64(index) * UInt64(chunkSize)
        return Int(min(UInt64(chunkSize), size - start))
    }

    /// Bytes of chunk `index` as stored and sent.
    public func cipherLength(of index: Int) -> Int { plainLength(of: index) + Self.tagLength }

    /// Where chunk `index` starts in the plaintext.
    public func plainOffset(of index: Int) -> UInt64 { UInt64(index) * UInt64(chunkSize) }

    /// Where chunk `index` starts in the stored file of ciphertexts (each slot holds a full
    /// chunk and its tag; only the last may be shorter).
    public func storedOffset(of index: Int) -> UInt64 { UInt64(index) * UInt64(chunkSize + Self.tagLength) }

    /// Bytes of every chunk's ciphertext together: what a holder stores.
    public var storedSize: UInt64 { size + UInt64(chunkCount * Self.tagLength) }

    public var manifestLength: Int { chunkCount * Self.chunkNameLength }

    /// Plaintext bytes of the chunks in `held`.
    public func plainBytes(held: ChunkSet) -> UInt64 {
        guard held.heldCount > 0 else { return 0 }
        let last = chunkCount - 1
        let full = UInt64(held.heldCount) * UInt64(chunkSize)
        return held.contains(last) ? full - UInt64(chunkSize - plainLength(of: last)) : full
    }
}
