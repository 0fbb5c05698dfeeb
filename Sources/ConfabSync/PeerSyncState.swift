import ConfabModel
import ConfabWire

/// What the engine knows about one connected peer, for the life of one session.
struct PeerSyncState {
    var role: NodeRole?
    /// The highest clock the peer announced per conversation: what it holds.
    var theirs: [ConversationID: VectorClock] = [:]
    /// What was sent to it this session, acknowledged or not: the flow-control window is
    /// the distance between this and `theirs`.
    var sent: [ConversationID: VectorClock] = [:]
    /// The last clock announced to it per conversation, so the same clock is not announced
    /// twice in a row (two nodes re-announcing to each other would never stop).
    var announced: [ConversationID: VectorClock] = [:]

    var helloReceived: Bool { role != nil }
}
