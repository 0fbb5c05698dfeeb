import ConfabModel
import ConfabStore

extension Operations {
    /// File messages this member can see, oldest first: of one conversation, of all, and
    /// only those whose file id starts with `prefix` when given (how a person names one).
    public struct Files: ReadOperation {
        public typealias Answer = [FileInfo]
        public static let method = OperationMethod.files
        public var conversation: ConversationID?
        public var prefix: String?

        public init(in conversation: ConversationID? = nil, matching prefix: String? = nil) {
            self.conversation = conversation
            self.prefix = prefix
        }

        public func perform(on messenger: some Messenger) async throws -> [FileInfo] {
            try await messenger.perform(self)
        }

        public func validated() throws -> Self {
            if let prefix, prefix.isEmpty || prefix.count > 64 || !prefix.allSatisfy(\.isHexDigit) {
                throw ReadParams.refused("files's param prefix is 1 to 64 hex digits (the start of a file id)")
            }
            return self
        }

        private enum CodingKeys: String, CodingKey { case conversation, prefix }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            conversation = try container.decodeIfPresent(ConversationID.self, forKey: .conversation)
            prefix = try container.decodeIfPresent(String.self, forKey: .prefix)
            _ = try validated()
        }
    }

    /// Writes a file held whole here into `folder` (an absolute path; made if missing), in
    /// the folders it was sent in, never over an existing file; answers where it went.
    /// Nothing shared changes, so it is answered like a read: by whoever holds the store.
    public struct SaveFile: ReadOperation {
        public typealias Answer = SavedFile
        public static let method = OperationMethod.saveFile
        public var file: FileID
        public var folder: String

        public init(_ file: FileID, into folder: String) {
            self.file = file
            self.folder = folder
        }

        public func perform(on messenger: some Messenger) async throws -> SavedFile {
            try await messenger.perform(self)
        }

        public func validated() throws -> Self {
            guard folder.hasPrefix("/") else { throw ReadParams.refused("save_file needs an absolute folder") }
            return self
        }

        private enum CodingKeys: String, CodingKey { case file, folder }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            file = try container.decode(FileID.self, forKey: .file)
            folder = try container.decode(String.self, forKey: .folder)
            _ = try validated()
        }
    }

    /// Every peer this node knows, with its trust here: online or not, no node needed
    /// (`peers` adds who is online now).
    public struct KnownPeers: ReadOperation {
        public typealias Answer = [Peer]
        public static let method = OperationMethod.knownPeers

        public init() {}

        public func perform(on messenger: some Messenger) async throws -> [Peer] {
            try await messenger.perform(self)
        }
    }

    /// Whether this machine shares "is typing…" and shows others' (`value` sets it first;
    /// without it, the setting is only read). Kept in the store, where a running node reads
    /// it, so it is written like any operation: by the node when one is attached.
    public struct TypingSetting: ConfabOperation {
        public typealias Answer = TypingIndicators
        public static let method = OperationMethod.typingSetting
        public var value: Bool?

        public init(_ value: Bool? = nil) { self.value = value }

        public func perform(on messenger: some Messenger) async throws -> TypingIndicators {
            try await messenger.perform(self)
        }
    }
}

/// A page of history, oldest first; `hasOlder` says whether a page before it exists.
public struct HistoryPage: Sendable, Equatable, Codable {
    public let messages: [ChatMessage]
    public let hasOlder: Bool

    public init(messages: [ChatMessage], hasOlder: Bool) {
        self.messages = messages
        self.hasOlder = hasOlder
    }
}

/// Where `save_file` wrote a file.
public struct SavedFile: Sendable, Equatable, Codable {
    public let path: String

    public init(path: String) { self.path = path }
}

/// The typing setting, as `confab typing --json` prints it.
public struct TypingIndicators: Sendable, Equatable, Codable {
    public let typingIndicators: Bool

    public init(_ on: Bool) { typingIndicators = on }
}
