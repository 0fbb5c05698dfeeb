import ConfabModel
import ConfabStore

extension Operations {
    /// A file of this machine (`path`, absolute), in `folder` of a tree sent: encrypted into
    /// the store, then its file message written (Protocol.md §17).
    public struct SendFile: ConfabOperation {
        public typealias Answer = SentFile
        public static let method = OperationMethod.sendFile
        public var path: String
        public var folder: String
        public var target: MessageTarget

        public init(path: String, folder: String, to target: MessageTarget) {
            self.path = path
            self.folder = folder
            self.target = target
        }

        public func perform(on messenger: some Messenger) async throws -> SentFile {
            try await messenger.perform(self)
        }

        private enum CodingKeys: String, CodingKey { case path, folder }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            path = try container.decode(String.self, forKey: .path)
            folder = try container.decodeIfPresent(String.self, forKey: .folder) ?? ""
            target = try MessageTarget(from: decoder, method: Self.method)
            guard path.hasPrefix("/") else {
                throw ControlEnvelope.Malformed(description: "send_file needs an absolute path")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            if !folder.isEmpty { try container.encode(folder, forKey: .folder) }
            try target.encode(to: encoder)
        }
    }

    /// Fetch this file whatever its size (one over the automatic-download limit waits for
    /// this).
    public struct AcceptFile: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.acceptFile
        public var file: FileID

        public init(_ file: FileID) { self.file = file }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }
}
