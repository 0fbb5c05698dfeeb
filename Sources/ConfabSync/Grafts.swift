import ConfabModel

/// Conversations in which a peer's clock showed entries this node lacks (Protocol.md §12.5).
/// Most are on their way from their author's eager push; those still missing `graftDelay`
/// later are asked for with a request, from one peer that holds them at a time, so that a
/// node receives each entry about once however many peers tell it they hold it.
struct Grafts {
    struct Lack {
        /// When a peer's clock first showed this node lacking something since it last
        /// held everything its peers were known to hold.
        var since: ContinuousClock.Instant
        /// Peers asked since their clocks last brought news: each is asked once per news,
        /// so a peer that claims what it never sends costs one request per claim.
        var asked: Set<NodeID> = []
        var lastAsked: ContinuousClock.Instant?
    }

    private(set) var lacking: [ConversationID: Lack] = [:]

    var isEmpty: Bool { lacking.isEmpty }

    /// A peer's clock shows more than this node holds; `news`: more than that peer was
    /// known to hold, which makes it worth asking again.
    mutating func note(_ conversation: ConversationID, holder: NodeID, news: Bool, at now: ContinuousClock.Instant) {
        if lacking[conversation] == nil { lacking[conversation] = Lack(since: now) }
        if news { lacking[conversation]?.asked.remove(holder) }
    }

    /// The conversations whose lack is older than `delay` and whose last request, if any,
    /// had `retry` to be answered.
    func due(at now: ContinuousClock.Instant, delay: Duration, retry: Duration) -> [(ConversationID, Lack)] {
        lacking.filter { _, lack in
            now - lack.since >= delay && lack.lastAsked.map { now - $0 >= retry } ?? true
        }
        .sorted { $0.key < $1.key }
    }

    mutating func asked(_ peer: NodeID, for conversation: ConversationID, at now: ContinuousClock.Instant) {
        lacking[conversation]?.asked.insert(peer)
        lacking[conversation]?.lastAsked = now
    }

    /// Nothing is missing any more, or no connected peer holds it.
    mutating func forget(_ conversation: ConversationID) {
        lacking[conversation] = nil
    }
}
