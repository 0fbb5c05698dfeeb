import ConfabModel
import ConfabStore

extension Operations {
    /// Starts a conversation (a new thread), with an optional first message.
    public struct Create: ConfabOperation {
        public typealias Answer = CreatedConversation
        public static let method = OperationMethod.create
        public var participants: [NodeID]
        public var title: String?
        public var firstMessage: String?
        /// A large group (Protocol.md §19) even of 64 members or fewer; absent from clients
        /// that predate large groups.
        public var large: Bool?

        public init(participants: [NodeID], title: String?, firstMessage: String?, large: Bool = false) {
            self.participants = participants
            self.title = title
            self.firstMessage = firstMessage
            self.large = large ? true : nil
        }

        public func perform(on messenger: some Messenger) async throws -> CreatedConversation {
            try await messenger.perform(self)
        }
    }

    /// Add and remove members of `conversation` (Protocol.md §4.8); `history` gives the
    /// added members the earlier keys.
    public struct ChangeMembers: ConfabOperation {
        public typealias Answer = MembershipChange
        public static let method = OperationMethod.changeMembers
        public var conversation: ConversationID
        public var add: [NodeID]
        public var remove: [NodeID]
        public var history: Bool

        public init(conversation: ConversationID, add: [NodeID], remove: [NodeID], history: Bool) {
            self.conversation = conversation
            self.add = add
            self.remove = remove
            self.history = history
        }

        public func perform(on messenger: some Messenger) async throws -> MembershipChange {
            try await messenger.perform(self)
        }

        private enum CodingKeys: String, CodingKey { case conversation, add, remove, history }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            conversation = try container.decode(ConversationID.self, forKey: .conversation)
            add = try container.decodeIfPresent([NodeID].self, forKey: .add) ?? []
            if container.contains(.remove), (try? container.decode(Bool.self, forKey: .remove)) != nil {
                throw ControlEnvelope.Malformed(description: "change_members's param remove is an array of keys")
            }
            remove = try container.decodeIfPresent([NodeID].self, forKey: .remove) ?? []
            history = try container.decodeIfPresent(Bool.self, forKey: .history) ?? false
            guard !add.isEmpty || !remove.isEmpty else {
                throw ControlEnvelope.Malformed(
                    description: "change_members needs param add or remove (arrays of keys)")
            }
        }
    }

    /// Leave `conversation`: nothing written there after reaches this node.
    public struct Leave: ConfabOperation {
        public typealias Answer = MembershipChange
        public static let method = OperationMethod.leave
        public var conversation: ConversationID

        public init(_ conversation: ConversationID) { self.conversation = conversation }

        public func perform(on messenger: some Messenger) async throws -> MembershipChange {
            try await messenger.perform(self)
        }
    }

    /// Marks a conversation read (clearing "marked unread"); answers whether a read
    /// receipt was written.
    public struct MarkRead: ConfabOperation {
        public typealias Answer = Bool
        public static let method = OperationMethod.markRead
        public var conversation: ConversationID

        public init(_ conversation: ConversationID) { self.conversation = conversation }

        public func perform(on messenger: some Messenger) async throws -> Bool { try await messenger.perform(self) }
    }

    /// A flag that stays on this machine (archived, pinned, muted, marked unread).
    public struct SetFlag: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.setFlag
        public var flag: LocalFlag
        public var value: Bool
        public var conversation: ConversationID

        public init(_ flag: LocalFlag, _ value: Bool, on conversation: ConversationID) {
            self.flag = flag
            self.value = value
            self.conversation = conversation
        }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }

        private enum CodingKeys: String, CodingKey { case flag, value, conversation }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard let raw = try? container.decode(String.self, forKey: .flag), let flag = LocalFlag(rawValue: raw)
            else {
                throw ControlEnvelope.Malformed(
                    description:
                        "set_flag needs param flag, one of \(LocalFlag.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            self.flag = flag
            value = try container.decode(Bool.self, forKey: .value)
            conversation = try container.decode(ConversationID.self, forKey: .conversation)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(flag.rawValue, forKey: .flag)
            try container.encode(value, forKey: .value)
            try container.encode(conversation, forKey: .conversation)
        }
    }

    /// Deletes a conversation from this machine.
    public struct Delete: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.delete
        public var conversation: ConversationID

        public init(_ conversation: ConversationID) { self.conversation = conversation }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }
}
