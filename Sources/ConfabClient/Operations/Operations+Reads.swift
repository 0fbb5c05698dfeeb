import ConfabModel
import ConfabStore

extension Operations {
    /// The conversation list, pinned first, then newest activity: the inbox (not archived),
    /// the archived ones, or all; the first `limit` rows only when given (a first screen).
    public struct Conversations: ReadOperation {
        public typealias Answer = [ConversationSummary]
        public static let method = OperationMethod.conversations
        public var filter: ConversationFilter
        public var limit: Int?

        public init(_ filter: ConversationFilter = .inbox, limit: Int? = nil) {
            self.filter = filter
            self.limit = limit
        }

        public func perform(on messenger: some Messenger) async throws -> [ConversationSummary] {
            try await messenger.perform(self)
        }

        /// Refuses what no store call could answer sensibly (also when built in Swift).
        public func validated() throws -> Self {
            if let limit, limit < 1 { throw ReadParams.refused("conversations's param limit is 1 or more") }
            return self
        }

        private enum CodingKeys: String, CodingKey { case filter, limit }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let name = try container.decodeIfPresent(String.self, forKey: .filter) ?? "inbox"
            guard let filter = ReadParams.filters[name] else {
                throw ReadParams.refused("conversations's param filter is inbox, archived or all")
            }
            self.filter = filter
            limit = try container.decodeIfPresent(Int.self, forKey: .limit)
            _ = try validated()
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(ReadParams.filters.first { $0.value == filter }?.key ?? "inbox", forKey: .filter)
            try container.encodeIfPresent(limit, forKey: .limit)
        }
    }

    /// One conversation's row of the list; refused when it is not held here.
    public struct Conversation: ReadOperation {
        public typealias Answer = ConversationSummary
        public static let method = OperationMethod.conversation
        public var conversation: ConversationID

        public init(_ conversation: ConversationID) { self.conversation = conversation }

        public func perform(on messenger: some Messenger) async throws -> ConversationSummary {
            try await messenger.perform(self)
        }
    }

    /// A page of a conversation's history, oldest first, with its system lines: the latest
    /// `limit` messages, those before a display-order key (scrolling up), or the page around
    /// a message (a search hit: up to 20 older messages, then it and everything newer, at
    /// most 5,000). `hasOlder` in the answer says whether a page before this one exists.
    public struct History: ReadOperation {
        public typealias Answer = HistoryPage
        public static let method = OperationMethod.history
        /// Messages a page holds when no limit is given: a screenful and then some.
        public static let defaultLimit = 60
        /// No more in one answer: a page, not a dump (`around` has its own bound).
        public static let maxLimit = 500

        public enum Page: Sendable, Equatable {
            case latest
            case before(DisplayOrderKey)
            case around(MessageRef)
        }

        public var conversation: ConversationID
        public var page: Page
        public var limit: Int?

        public init(_ conversation: ConversationID, _ page: Page = .latest, limit: Int? = nil) {
            self.conversation = conversation
            self.page = page
            self.limit = limit
        }

        public func perform(on messenger: some Messenger) async throws -> HistoryPage {
            try await messenger.perform(self)
        }

        public func validated() throws -> Self {
            if case .around = page, limit != nil {
                throw ReadParams.refused("history takes param limit only without around (around has its own page)")
            }
            if let limit, !(1...Self.maxLimit).contains(limit) {
                throw ReadParams.refused("history's param limit is 1 to \(Self.maxLimit)")
            }
            return self
        }

        private enum CodingKeys: String, CodingKey { case conversation, limit, before, around }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            conversation = try container.decode(ConversationID.self, forKey: .conversation)
            limit = try container.decodeIfPresent(Int.self, forKey: .limit)
            let before = try container.decodeIfPresent(DisplayOrderKey.self, forKey: .before)
            let around = try container.decodeIfPresent(MessageRef.self, forKey: .around)
            switch (before, around) {
            case (nil, nil): page = .latest
            case (let key?, nil): page = .before(key)
            case (nil, let ref?): page = .around(ref)
            default: throw ReadParams.refused("history takes at most one of params before and around")
            }
            _ = try validated()
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(conversation, forKey: .conversation)
            try container.encodeIfPresent(limit, forKey: .limit)
            switch page {
            case .latest: break
            case .before(let key): try container.encode(key, forKey: .before)
            case .around(let ref): try container.encode(ref, forKey: .around)
            }
        }
    }

    /// One message as it reads now; nil (`null`) when no message of it is held here (a
    /// system line is read in its page of history).
    public struct Message: ReadOperation {
        public typealias Answer = ChatMessage?
        public static let method = OperationMethod.message
        public var conversation: ConversationID
        public var message: MessageRef

        public init(_ message: MessageRef, in conversation: ConversationID) {
            self.conversation = conversation
            self.message = message
        }

        public func perform(on messenger: some Messenger) async throws -> ChatMessage? {
            try await messenger.perform(self)
        }
    }

    /// My newest message in a conversation that is still there to edit or delete; nil
    /// (`null`) when there is none.
    public struct LastOwnMessage: ReadOperation {
        public typealias Answer = ChatMessage?
        public static let method = OperationMethod.lastOwnMessage
        public var conversation: ConversationID

        public init(_ conversation: ConversationID) { self.conversation = conversation }

        public func perform(on messenger: some Messenger) async throws -> ChatMessage? {
            try await messenger.perform(self)
        }
    }

    /// Conversations matched by title or name first, then messages, newest first; a query
    /// with no words answers nothing.
    public struct Search: ReadOperation {
        public typealias Answer = [SearchHit]
        public static let method = OperationMethod.search
        public static let defaultLimit = 50
        public static let maxLimit = 500
        public var query: String
        public var limit: Int?

        public init(_ query: String, limit: Int? = nil) {
            self.query = query
            self.limit = limit
        }

        public func perform(on messenger: some Messenger) async throws -> [SearchHit] {
            try await messenger.perform(self)
        }

        public func validated() throws -> Self {
            if let limit, !(1...Self.maxLimit).contains(limit) {
                throw ReadParams.refused("search's param limit is 1 to \(Self.maxLimit)")
            }
            return self
        }

        private enum CodingKeys: String, CodingKey { case query, limit }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            query = try container.decode(String.self, forKey: .query)
            limit = try container.decodeIfPresent(Int.self, forKey: .limit)
            _ = try validated()
        }
    }

    /// Who is in a conversation (in join order), its admin, and who was and is not any more.
    public struct Members: ReadOperation {
        public typealias Answer = MemberList
        public static let method = OperationMethod.members
        public var conversation: ConversationID

        public init(of conversation: ConversationID) { self.conversation = conversation }

        public func perform(on messenger: some Messenger) async throws -> MemberList {
            try await messenger.perform(self)
        }
    }
}

/// What the read operations share: the names of the list filters, and how bad params are
/// refused (the message goes back to the caller as it is).
enum ReadParams {
    static let filters: [String: ConversationFilter] = ["inbox": .inbox, "archived": .archived, "all": .all]

    static func refused(_ description: String) -> ControlEnvelope.Malformed {
        ControlEnvelope.Malformed(description: description)
    }
}
