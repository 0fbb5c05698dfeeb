import ConfabModel
import ConfabStore

/// The read operations by the names front ends use.
extension Messenger {
    public func conversations(
        _ filter: ConversationFilter = .inbox, limit: Int? = nil
    ) async throws
        -> [ConversationSummary]
    {
        try await perform(Operations.Conversations(filter, limit: limit))
    }

    public func conversation(_ id: ConversationID) async throws -> ConversationSummary {
        try await perform(Operations.Conversation(id))
    }

    public func history(
        _ conversation: ConversationID, _ page: Operations.History.Page = .latest, limit: Int? = nil
    ) async throws -> HistoryPage {
        try await perform(Operations.History(conversation, page, limit: limit))
    }

    public func message(_ message: MessageRef, in conversation: ConversationID) async throws -> ChatMessage? {
        try await perform(Operations.Message(message, in: conversation))
    }

    public func lastOwnMessage(in conversation: ConversationID) async throws -> ChatMessage? {
        try await perform(Operations.LastOwnMessage(conversation))
    }

    public func search(_ query: String, limit: Int? = nil) async throws -> [SearchHit] {
        try await perform(Operations.Search(query, limit: limit))
    }

    public func members(of conversation: ConversationID) async throws -> MemberList {
        try await perform(Operations.Members(of: conversation))
    }

    public func files(
        in conversation: ConversationID? = nil, matching prefix: String? = nil
    ) async throws
        -> [FileInfo]
    {
        try await perform(Operations.Files(in: conversation, matching: prefix))
    }

    public func knownPeers() async throws -> [Peer] {
        try await perform(Operations.KnownPeers())
    }

    /// `folder` absolute; returns where the file went.
    public func saveFile(_ file: FileID, into folder: String) async throws -> String {
        try await perform(Operations.SaveFile(file, into: folder)).path
    }

    public func typingIndicators() async throws -> Bool {
        try await perform(Operations.TypingSetting()).typingIndicators
    }

    public func setTypingIndicators(_ on: Bool) async throws {
        _ = try await perform(Operations.TypingSetting(on))
    }
}
