import ConfabCrypto

/// A file's content identity (Protocol.md §17.1): BLAKE2b-256 over its size, chunk size and
/// the names of its encrypted chunks. It names content, not a message: two file entries
/// that send the same content with the same key name the same id, and it is stored once.
public struct FileID: ByteIdentifier {
    public static let length = 32

    public let bytes: [UInt8]

    public init(validatedBytes: [UInt8]) {
        bytes = validatedBytes
    }
}
