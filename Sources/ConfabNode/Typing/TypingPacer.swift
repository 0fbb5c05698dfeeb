import ConfabClient
import ConfabModel

/// How often "typing" is said for one person (Protocol.md §10.2): a start at most once
/// every `interval` per conversation while it goes on — a receiver shows it for 5 s after
/// each — and a stop only to end a start. A front end asks on every key and paces at
/// `refreshInterval`; the node paces whatever reaches it again, at `enforcedInterval`, so
/// no client can make it flood its peers. The node's is shorter: a client's start, paced
/// at 3 s by its own clock, may reach the node a little sooner after the last than that,
/// and must not wait 3 s more.
public struct TypingPacer: Sendable {
    public static let refreshInterval: Duration = .seconds(3)
    static let enforcedInterval: Duration = .seconds(2)
    /// Conversations with a start not yet stopped. Beyond it, starts older than a
    /// receiver's timeout are forgotten (they ended everywhere), then new ones refused.
    static let maxConversations = 64
    private static let receiverTimeout: Duration = .seconds(5)

    private let interval: Duration
    private var started: [ConversationID: ContinuousClock.Instant] = [:]

    public init(interval: Duration = refreshInterval) {
        self.interval = interval
    }

    /// Whether to say it now.
    public mutating func shouldSignal(
        _ active: Bool, in conversation: ConversationID, now: ContinuousClock.Instant = .now
    ) -> Bool {
        guard active else { return started.removeValue(forKey: conversation) != nil }
        if let last = started[conversation] {
            guard now - last >= interval else { return false }
        } else if started.count >= Self.maxConversations {
            started = started.filter { now - $0.value < Self.receiverTimeout }
            guard started.count < Self.maxConversations else { return false }
        }
        started[conversation] = now
        return true
    }

    /// My message was written in `conversation`: every receiver ends my indication when it
    /// stores it (§10.2), so a stop after it would say nothing, and the next start is news.
    public mutating func messageWritten(in conversation: ConversationID) {
        started[conversation] = nil
    }
}
