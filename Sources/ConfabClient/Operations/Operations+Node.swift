import ConfabModel
import ConfabStore

extension Operations {
    /// The running node's address, sessions and outbox.
    public struct Status: ConfabOperation {
        public typealias Answer = NodeStatus
        public static let method = OperationMethod.status

        public init() {}

        public func perform(on messenger: some Messenger) async throws -> NodeStatus {
            try await messenger.perform(self)
        }
    }

    /// Another process wrote to this conversation through the store: offer it now.
    public struct Changed: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.changed
        public var conversation: ConversationID

        public init(_ conversation: ConversationID) { self.conversation = conversation }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }

    /// My person is typing in this conversation (`value`), or stopped: the node tells the
    /// participants online, paced (Protocol.md §10.2).
    public struct Typing: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.typing
        public var conversation: ConversationID
        public var value: Bool

        public init(_ conversation: ConversationID, active: Bool) {
            self.conversation = conversation
            value = active
        }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }

    /// Re-announces clocks to every peer and redials known peers now.
    public struct Resync: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.resync

        public init() {}

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }
}
