import ConfabModel
import ConfabStore

extension Operations {
    /// Joins the room of this name on this node's network (Protocol.md §18): its id and
    /// key follow from the name, so nobody creates it. Joining one already joined changes
    /// nothing.
    public struct Join: ConfabOperation {
        public typealias Answer = JoinedRoom
        public static let method = OperationMethod.join
        public var room: RoomName

        public init(_ room: RoomName) { self.room = room }

        public func perform(on messenger: some Messenger) async throws -> JoinedRoom {
            try await messenger.perform(self)
        }
    }

    /// The rooms joined here, and the rooms the peers in session say they joined, with how
    /// many of them said so.
    public struct Rooms: ConfabOperation {
        public typealias Answer = [RoomListing]
        public static let method = OperationMethod.rooms

        public init() {}

        public func perform(on messenger: some Messenger) async throws -> [RoomListing] {
            try await messenger.perform(self)
        }
    }
}

/// A room joined: its conversation, to write in and read like any other.
public struct JoinedRoom: Codable, Sendable, Equatable {
    public let room: RoomName
    public let conversation: ConversationID

    public init(room: RoomName, conversation: ConversationID) {
        self.room = room
        self.conversation = conversation
    }
}

/// One room as `confab rooms` lists it. `peers` counts the nodes in session with this one
/// that said they joined it: what this node saw, not what anyone claims about others.
public struct RoomListing: Codable, Sendable, Equatable {
    public let room: RoomName
    /// Set when joined here.
    public let conversation: ConversationID?
    public let peers: Int

    public init(room: RoomName, conversation: ConversationID?, peers: Int) {
        self.room = room
        self.conversation = conversation
        self.peers = peers
    }

    public var joined: Bool { conversation != nil }
}
