/// What a file entry's sealed part says (Protocol.md §17.2), as a member opened it. `name`
/// and `folder` are the sender's words, never paths: `SafeFileName` makes them usable.
public struct FileDescription: Sendable, Equatable {
    public static let maxNameBytes = 255
    public static let maxFolderBytes = 1024
    public static let maxMediaTypeBytes = 127
    public static let keyLength = 32
    public static let sha256Length = 32

    public var name: String
    public var folder: String
    public var mediaType: String
    /// The file key its chunks are encrypted with.
    public var key: [UInt8]
    /// SHA-256 of the whole plaintext.
    public var sha256: [UInt8]
    public var width: Int
    public var height: Int

    public init(
        name: String, folder: String = "", mediaType: String = "", key: [UInt8], sha256: [UInt8], width: Int = 0,
        height: Int = 0
    ) {
        self.name = name
        self.folder = folder
        self.mediaType = mediaType
        self.key = key
        self.sha256 = sha256
        self.width = width
        self.height = height
    }

    /// Why a description breaks the rules of §17.2, or nil: a sender must not write one, and
    /// a reader shows a file whose description breaks them as one it could not decrypt.
    public var problem: String? {
        if name.isEmpty || name.utf8.count > Self.maxNameBytes {
            return "a file name needs 1 to \(Self.maxNameBytes) bytes"
        }
        if folder.utf8.count > Self.maxFolderBytes { return "a folder path is at most \(Self.maxFolderBytes) bytes" }
        if mediaType.utf8.count > Self.maxMediaTypeBytes {
            return "a media type is at most \(Self.maxMediaTypeBytes) bytes"
        }
        if key.count != Self.keyLength { return "a file key has \(Self.keyLength) bytes" }
        if sha256.count != Self.sha256Length { return "a file hash has \(Self.sha256Length) bytes" }
        return nil
    }
}
