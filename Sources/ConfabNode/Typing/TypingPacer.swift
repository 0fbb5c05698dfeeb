import ConfabModel

/// How often "typing" is said for one person (Protocol.md §10.2): a start at most once
/// every `refreshInterval` per conversation while it goes on — a receiver shows it for 5 s
/// after each — and a stop only to end a start. A front end asks on every key; the node
/// asks again for whatever reaches it, so no client can make it flood its peers.
public struct TypingPacer: Sendable {
    public static let refreshInterval: Duration = .seconds(3)
    /// Conversations with a start not yet stopped. Beyond it, starts older than a
    /// receiver's timeout are forgotten (they ended everywhere), then new ones refused.
    static let maxConversations = 64
    private static let receiverTimeout: Duration = .seconds(5)

    private var started: [ConversationID: ContinuousClock.Instant] = [:]

    public init() {}

    /// Whether to say it now.
    public mutating func shouldSignal(
        _ active: Bool, in conversation: ConversationID, now: ContinuousClock.Instant = .now
    ) -> Bool {
        guard active else { return started.removeValue(forKey: conversation) != nil }
        if let last = started[conversation] {
            guard now - last >= Self.refreshInterval else { return false }
        } else if started.count >= Self.maxConversations {
            started = started.filter { now - $0.value < Self.receiverTimeout }
            guard started.count < Self.maxConversations else { return false }
        }
        started[conversation] = now
        return true
    }
}
