import ConfabModel
import ConfabWire

/// What the engine knows about one connected peer, for the life of one session.
struct PeerSyncState {
    var role: NodeRole?
    /// Whether this node treats the peer as a relay: it said so in its Hello *and* this
    /// node trusts it to be one (Protocol.md §14.1). A claim alone gets nothing.
    var isTrustedRelay = false
    /// The highest clock the peer announced per conversation it shares with this node:
    /// what it says it holds. Conversations it does not share are not remembered.
    var theirs: [ConversationID: VectorClock] = [:]
    /// Clocks of conversations it invited this node to (announced, not held here yet):
    /// they count only once the conversation is held and shared, and at most
    /// `maxInvitations` are kept, so made-up conversations cost nothing.
    var invited: [ConversationID: VectorClock] = [:]
    static let maxInvitations = 1024
    /// What was sent to it this session, acknowledged or not: the flow-control window is
    /// the distance between this and `theirs`.
    var sent: [ConversationID: VectorClock] = [:]
    /// The highest seq of my own log actually written to it this session, per
    /// conversation: its clock acknowledges my entries only up to this (Protocol.md §9).
    var written: [ConversationID: UInt64] = [:]
    /// The last clock announced to it per conversation, so the same clock is not announced
    /// twice in a row (two nodes re-announcing to each other would never stop).
    var announced: [ConversationID: VectorClock] = [:]

    var helloReceived: Bool { role != nil }
}
