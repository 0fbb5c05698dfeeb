import ConfabModel

/// What two nodes say to each other inside a session (Protocol.md §10).
public enum SessionMessage: Sendable, Equatable {
    case hello(Hello)
    /// Clocks of conversations as the sender holds them; also acknowledges entries.
    case clocks([ConversationClock])
    /// Clocks that ask for what the sender lacks, every author's entries beyond them
    /// (Protocol.md §12.5); on the wire a Clocks message with `request` set.
    case request([ConversationClock])
    /// Encoded signed entries, to be applied in order.
    case entries([[UInt8]])
    case want(Want)
    case ping(UInt64)
    case pong(UInt64)
    case bye(ByeReason)
    /// Two encoded entries that together prove their author forked its log (Protocol.md §7.1).
    case forkProof(first: [UInt8], second: [UInt8])
    /// The sender's person is typing in a conversation (or stopped): ephemeral, for a
    /// direct session only (Protocol.md §10.2).
    case typing(Typing)
    /// Every room the sender has joined (Protocol.md §18.4), sorted; replaces what it said
    /// before.
    case rooms([RoomName])
    /// The sender already held entries of these rooms that the receiver passed on to it:
    /// neither passes the other authors' entries of them on to the other at once any more,
    /// only announces them (Protocol.md §18.8). Sorted, no id twice.
    case prune([ConversationID])
    /// A person's device list, every entry from seq 1 (Protocol.md §20.9): evidence about
    /// `person` alone, read as the list of that key, never about the sender. Its entries are
    /// encoded `SignedDeviceEntry` values, checked by the store, not here.
    case deviceList(person: NodeID, entries: [[UInt8]])
    /// Asks for a file's manifest and chunks (Protocol.md §17.5).
    case fileWant(FileWant)
    /// A file's chunk names, in order.
    case fileManifest(file: FileID, manifest: [UInt8])
    /// One encrypted chunk of a file.
    case fileChunk(file: FileID, index: Int, data: [UInt8])
    /// What the sender holds of a file: where to ask, never evidence.
    case fileHave(FileHave)

    public struct Hello: Sendable, Equatable {
        public var version: UInt32
        /// The oldest version the sender still syncs with; a Hello without one (Confab
        /// 0.1.0's) says 1.
        public var oldestVersion: UInt32
        public var features: [String]
        public var displayName: String
        public var role: NodeRole
        public var listenPort: UInt16

        public init(
            version: UInt32 = SessionCodec.protocolVersion,
            oldestVersion: UInt32 = SessionCodec.oldestProtocolVersion, features: [String] = SessionCodec.features,
            displayName: String,
            role: NodeRole, listenPort: UInt16
        ) {
            self.version = version
            self.oldestVersion = oldestVersion
            self.features = features
            self.displayName = displayName
            self.role = role
            self.listenPort = listenPort
        }
    }

    public struct ConversationClock: Sendable, Equatable {
        public var conversation: ConversationID
        public var clock: VectorClock
        /// Only the authors whose seq moved since the clock of this conversation the sender
        /// last sent in this session; the others are as they were (Protocol.md §10.2).
        /// Never in a request.
        public var partial: Bool

        public init(conversation: ConversationID, clock: VectorClock, partial: Bool = false) {
            self.conversation = conversation
            self.clock = clock
            self.partial = partial
        }
    }

    public struct Typing: Sendable, Equatable {
        public var conversation: ConversationID
        /// True while typing (sent again every few seconds as it goes on); false once stopped.
        public var active: Bool

        public init(conversation: ConversationID, active: Bool) {
            self.conversation = conversation
            self.active = active
        }
    }

    public struct Want: Sendable, Equatable {
        public var conversation: ConversationID
        public var author: NodeID
        public var after: UInt64

        public init(conversation: ConversationID, author: NodeID, after: UInt64) {
            self.conversation = conversation
            self.author = author
            self.after = after
        }
    }
}

extension SessionMessage {
    public struct FileWant: Sendable, Equatable {
        public var file: FileID
        public var manifest: Bool
        public var chunks: [Int]

        public init(file: FileID, manifest: Bool = false, chunks: [Int] = []) {
            self.file = file
            self.manifest = manifest
            self.chunks = chunks
        }
    }

    public struct FileHave: Sendable, Equatable {
        public var file: FileID
        public var manifest: Bool
        /// Bitmap, bit i of byte i / 8, least significant first (`ChunkSet`).
        public var chunks: [UInt8]

        public init(file: FileID, manifest: Bool, chunks: [UInt8]) {
            self.file = file
            self.manifest = manifest
            self.chunks = chunks
        }
    }

    /// Whether the message carries file content: sent behind everything else, so that file
    /// data never holds up the messages of a conversation (Protocol.md §17.5).
    public var isFileData: Bool {
        switch self {
        case .fileChunk, .fileManifest: return true
        default: return false
        }
    }
}

public enum NodeRole: String, Sendable, Codable {
    case person
    case relay
}
