import ConfabModel

/// Everything of an entry but the signature: what the author fills in before signing.
public struct EntryDraft: Sendable {
    public var conversationID: ConversationID
    public var seq: UInt64
    public var previous: EntryHash?
    public var timestamp: Int64
    public var clock: VectorClock
    public var body: EntryBody

    public init(
        conversationID: ConversationID, seq: UInt64, previous: EntryHash?, timestamp: Int64, clock: VectorClock,
        body: EntryBody
    ) {
        self.conversationID = conversationID
        self.seq = seq
        self.previous = previous
        self.timestamp = timestamp
        self.clock = clock
        self.body = body
    }
}
