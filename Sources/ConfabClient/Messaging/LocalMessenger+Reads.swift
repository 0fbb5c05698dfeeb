import ConfabModel
import ConfabStore
import Foundation

/// The handlers of the read operations: the store answers, whether or not a node runs.
extension LocalMessenger {
    public func perform(_ operation: Operations.Conversations) async throws -> [ConversationSummary] {
        let operation = try operation.validated()
        guard let limit = operation.limit else { return try local.store.conversations(operation.filter) }
        return try local.store.conversations(operation.filter, limit: limit)
    }

    public func perform(_ operation: Operations.Conversation) async throws -> ConversationSummary {
        guard let summary = try local.store.conversation(operation.conversation) else {
            throw StoreError.unknownConversation(operation.conversation.hex)
        }
        return summary
    }

    public func perform(_ operation: Operations.History) async throws -> HistoryPage {
        let operation = try operation.validated()
        let (store, id) = (local.store, operation.conversation)
        let before: DisplayOrderKey?
        switch operation.page {
        case .latest: before = nil
        case .before(let key): before = key
        case .around(let ref):
            guard let key = try store.message(id, author: ref.author, seq: ref.seq)?.orderKey else {
                throw StoreError.invalidInput("no message \(ref.id(in: id)) is held here to show the history around")
            }
            let (messages, hasOlder) = try store.history(id, from: key)
            return HistoryPage(messages: messages, hasOlder: hasOlder)
        }
        let limit = operation.limit ?? Operations.History.defaultLimit
        let messages = try store.history(id, limit: limit, before: before)
        // The page is cut at `limit` messages and carries the system lines among them: a
        // full page may have more before it, a short one reached the beginning.
        return HistoryPage(messages: messages, hasOlder: messages.count(where: { !$0.isSystemLine }) == limit)
    }

    public func perform(_ operation: Operations.Message) async throws -> ChatMessage? {
        try local.store.message(operation.conversation, author: operation.message.author, seq: operation.message.seq)
    }

    public func perform(_ operation: Operations.LastOwnMessage) async throws -> ChatMessage? {
        guard let seq = try local.store.lastOwnMessageSeq(in: operation.conversation) else { return nil }
        return try local.store.message(operation.conversation, author: local.me, seq: seq)
    }

    public func perform(_ operation: Operations.Search) async throws -> [SearchHit] {
        let operation = try operation.validated()
        return try local.store.search(operation.query, limit: operation.limit ?? Operations.Search.defaultLimit)
    }

    public func perform(_ operation: Operations.Members) async throws -> MemberList {
        try local.store.members(of: operation.conversation)
    }

    public func perform(_ operation: Operations.Files) async throws -> [FileInfo] {
        let operation = try operation.validated()
        let files = try local.store.files(in: operation.conversation)
        guard let prefix = operation.prefix?.lowercased() else { return files }
        return files.filter { $0.fileID.hex.hasPrefix(prefix) }
    }

    public func perform(_ operation: Operations.KnownPeers) async throws -> [Peer] {
        // Another person's machines are that person (Protocol.md §8.1), not peers of their own;
        // my own machines are mine (`devices` lists them), no one to talk to.
        let owners = try local.store.deviceOwners()
        let mine = try local.store.myDevices()
        return try local.store.peers().filter { owners[$0.id] == nil && !mine.contains($0.id) }
    }

    public func perform(_ operation: Operations.SaveFile) async throws -> SavedFile {
        let operation = try operation.validated()
        let store = local.store
        guard let file = try store.files(withID: operation.file).first(where: { $0.name != nil }) else {
            throw StoreError.invalidInput("no file \(String(operation.file.hex.prefix(12))) is held here to save")
        }
        let folder = URL(fileURLWithPath: operation.folder)
        // Every chunk is opened and checked while it is written: seconds for a large file,
        // off the threads the node shares.
        let path = try await Blocking.run {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return try store.saveFile(file, to: folder, asFolder: true).path
        }
        return SavedFile(path: path)
    }

    public func perform(_ operation: Operations.SafetyNumberWith) async throws -> SafetyNumberAnswer {
        SafetyNumberAnswer(peer: operation.peer, safetyNumber: SafetyNumber(local.me, operation.peer).description)
    }

    public func perform(_ operation: Operations.TypingSetting) async throws -> TypingIndicators {
        if let value = operation.value {
            try local.store.setTypingIndicators(value)
            try await offerPersonalSettings()
        }
        return TypingIndicators(try local.store.typingIndicators())
    }
}
