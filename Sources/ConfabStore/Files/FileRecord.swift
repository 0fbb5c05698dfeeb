import ConfabModel

/// One file's content as this node holds it: its layout, its manifest once fetched, and
/// which chunks are on disk (recorded only after they were synced).
public struct FileRecord: Sendable, Equatable {
    public let id: FileID
    public let layout: FileLayout
    public var manifest: [UInt8]?
    public var held: ChunkSet
    /// The person asked for it (`confab save`, Enter in the chat), whatever its size.
    public var accepted: Bool
    /// Some file entry naming it opened here: a member can use it. A relay fetches files
    /// it cannot read.
    public var readable: Bool
    /// Why fetching stopped, if it did.
    public var problem: String?

    public var isComplete: Bool { manifest != nil && held.isComplete }

    /// Plaintext bytes of the chunks held.
    public var heldBytes: UInt64 { layout.plainBytes(held: held) }
}
