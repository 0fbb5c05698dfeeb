import ConfabModel

/// A peer started or stopped typing in a conversation this node's person is in (Protocol.md
/// §10.2). Starts and stops only: refreshes are not events, and a start not refreshed
/// within 5 s ends with a stop event.
public struct TypingEvent: Sendable, Equatable {
    public let conversation: ConversationID
    public let peer: NodeID
    /// The peer's name on this machine, for display.
    public let name: String
    public let active: Bool

    public init(conversation: ConversationID, peer: NodeID, name: String, active: Bool) {
        self.conversation = conversation
        self.peer = peer
        self.name = name
        self.active = active
    }
}
