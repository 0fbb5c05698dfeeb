import ConfabModel

/// One message of the link dialogue (Protocol.md §20.10), decoded and checked.
public enum LinkMessage: Sendable, Equatable {
    case request(deviceName: String)
    case confirm
    case refuse(reason: String)
    case grant(LinkGrant)
    case keys([LinkEpochKey])
    case done
}

/// What the offering device gives the new one once both people said yes.
public struct LinkGrant: Sendable, Equatable {
    public var person: NodeID
    /// The person's whole list, encoded entries, seq 1 first; checked by the receiver.
    public var deviceEntries: [[UInt8]]
    public var displayName: String
    public var networkKey: [UInt8]
    /// How many `keys` messages follow.
    public var keyMessages: Int

    public init(person: NodeID, deviceEntries: [[UInt8]], displayName: String, networkKey: [UInt8], keyMessages: Int) {
        self.person = person
        self.deviceEntries = deviceEntries
        self.displayName = displayName
        self.networkKey = networkKey
        self.keyMessages = keyMessages
    }
}

/// A conversation key the offering device holds: the key set by entry (author, seq).
public struct LinkEpochKey: Sendable, Equatable {
    public var conversation: ConversationID
    public var author: NodeID
    public var seq: UInt64
    public var key: [UInt8]

    public init(conversation: ConversationID, author: NodeID, seq: UInt64, key: [UInt8]) {
        self.conversation = conversation
        self.author = author
        self.seq = seq
        self.key = key
    }
}
