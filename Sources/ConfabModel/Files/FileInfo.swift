import Foundation

/// A file message as front ends show it: what it is, and how much of its content is here.
public struct FileInfo: Sendable, Equatable, Codable {
    /// Where a file's content stands on this node.
    public enum State: String, Sendable, Codable {
        /// Every chunk is here and checked: it can be saved.
        case complete
        /// Being fetched.
        case fetching
        /// Larger than the automatic-download limit: fetched once accepted (`confab save`).
        case waiting
        /// Fetching stopped: `problem` says why (a full disk, a file over the maximum size, a
        /// file its sender damaged).
        case failed
        /// The description did not open: nothing can be done with it.
        case unreadable
        /// Deleted for everyone by its sender.
        case deleted
    }

    public let conversationID: ConversationID
    public let author: NodeID
    public let seq: UInt64
    public let fileID: FileID
    /// The sender's name for it, made one line (§17.7 makes it safe on disk); nil when the
    /// description did not open.
    public let name: String?
    public let folder: String
    public let mediaType: String
    public let size: UInt64
    public let width: Int
    public let height: Int
    public var heldBytes: UInt64
    public var state: State
    public var problem: String?

    public init(
        conversationID: ConversationID, author: NodeID, seq: UInt64, fileID: FileID, name: String?, folder: String,
        mediaType: String, size: UInt64, width: Int, height: Int, heldBytes: UInt64, state: State,
        problem: String? = nil
    ) {
        self.conversationID = conversationID
        self.author = author
        self.seq = seq
        self.fileID = fileID
        self.name = name
        self.folder = folder
        self.mediaType = mediaType
        self.size = size
        self.width = width
        self.height = height
        self.heldBytes = heldBytes
        self.state = state
        self.problem = problem
    }

    /// How a person names this file on the command line: the file id's first 12 hex
    /// characters (any unique prefix of 4 or more works).
    public var shortID: String { String(fileID.hex.prefix(12)) }

    /// Fraction held, 0…1 (1 for an empty file).
    public var progress: Double { size == 0 ? 1 : Double(heldBytes) / Double(size) }

    /// The path below a chosen folder that this file is saved at (§17.7).
    public var relativePath: [String] { SafeFileName.relativePath(name: name ?? "file", folder: folder) }
}
