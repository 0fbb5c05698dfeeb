import ConfabModel
import ConfabStore

extension Operations {
    /// A message, a reply to `replyTo` when given (a message of the same conversation).
    public struct Send: ConfabOperation {
        public typealias Answer = SentMessage
        public static let method = OperationMethod.send
        public var text: String
        public var target: MessageTarget
        public var replyTo: MessageRef?

        public init(text: String, to target: MessageTarget, replyTo: MessageRef? = nil) {
            self.text = text
            self.target = target
            self.replyTo = replyTo
        }

        public func perform(on messenger: some Messenger) async throws -> SentMessage {
            try await messenger.perform(self)
        }

        private enum CodingKeys: String, CodingKey { case text, replyTo }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            replyTo = try container.decodeIfPresent(MessageRef.self, forKey: .replyTo)
            target = try MessageTarget(from: decoder, method: Self.method)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
            try container.encodeIfPresent(replyTo, forKey: .replyTo)
            try target.encode(to: encoder)
        }
    }

    /// Several messages to one conversation, stored in one transaction and answered with
    /// one line (`send --lines`): per-line requests and answers cost a script's pipe more
    /// than storing the messages.
    public struct SendLines: ConfabOperation {
        public typealias Answer = SentLines
        public static let method = OperationMethod.sendLines
        public var texts: [String]
        public var conversation: ConversationID

        public init(texts: [String], to conversation: ConversationID) {
            self.texts = texts
            self.conversation = conversation
        }

        public func perform(on messenger: some Messenger) async throws -> SentLines {
            try await messenger.perform(self)
        }

        private enum CodingKeys: String, CodingKey { case texts, conversation }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            texts = try container.decode([String].self, forKey: .texts)
            conversation = try container.decode(ConversationID.self, forKey: .conversation)
            guard !texts.isEmpty else {
                throw ControlEnvelope.Malformed(description: "send_lines needs at least one text")
            }
        }
    }

    /// A new text for my message `target` (its seq) in `conversation`.
    public struct Edit: ConfabOperation {
        public typealias Answer = MessageAction
        public static let method = OperationMethod.edit
        public var conversation: ConversationID
        public var target: UInt64
        public var text: String

        public init(conversation: ConversationID, target: UInt64, text: String) {
            self.conversation = conversation
            self.target = target
            self.text = text
        }

        public func perform(on messenger: some Messenger) async throws -> MessageAction {
            try await messenger.perform(self)
        }
    }

    /// Delete my message `target` in `conversation` for everyone.
    public struct Unsend: ConfabOperation {
        public typealias Answer = MessageAction
        public static let method = OperationMethod.unsend
        public var conversation: ConversationID
        public var target: UInt64

        public init(conversation: ConversationID, target: UInt64) {
            self.conversation = conversation
            self.target = target
        }

        public func perform(on messenger: some Messenger) async throws -> MessageAction {
            try await messenger.perform(self)
        }
    }

    /// My reaction `emoji` to any message of `conversation`, added or taken back.
    public struct React: ConfabOperation {
        public typealias Answer = ReactionSent
        public static let method = OperationMethod.react
        public var conversation: ConversationID
        public var message: MessageRef
        public var emoji: String
        public var remove: Bool

        public init(conversation: ConversationID, message: MessageRef, emoji: String, remove: Bool) {
            self.conversation = conversation
            self.message = message
            self.emoji = emoji
            self.remove = remove
        }

        public func perform(on messenger: some Messenger) async throws -> ReactionSent {
            try await messenger.perform(self)
        }

        private enum CodingKeys: String, CodingKey { case conversation, message, emoji, remove }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            conversation = try container.decode(ConversationID.self, forKey: .conversation)
            message = try container.decode(MessageRef.self, forKey: .message)
            emoji = try container.decode(String.self, forKey: .emoji)
            // A missing `remove` adds; a list (the form change_members takes) is refused.
            guard container.contains(.remove) else {
                remove = false
                return
            }
            guard let flag = try? container.decode(Bool.self, forKey: .remove) else {
                throw ControlEnvelope.Malformed(description: "react's param remove is true or false")
            }
            remove = flag
        }
    }
}

extension MessageTarget {
    private enum CodingKeys: String, CodingKey { case conversation, peer }

    /// Exactly one of `conversation` and `peer`, among the other params of `method`.
    init(from decoder: any Decoder, method: OperationMethod) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let conversation = try container.decodeIfPresent(ConversationID.self, forKey: .conversation)
        let peer = try container.decodeIfPresent(NodeID.self, forKey: .peer)
        switch (conversation, peer) {
        case (let conversation?, nil): self = .conversation(conversation)
        case (nil, let peer?): self = .newConversation(with: peer)
        default:
            throw ControlEnvelope.Malformed(
                description: "\(method.rawValue) needs exactly one of params conversation and peer")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .conversation(let id): try container.encode(id, forKey: .conversation)
        case .newConversation(let peer): try container.encode(peer, forKey: .peer)
        }
    }
}
