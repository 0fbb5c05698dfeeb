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
        /// Requests since the last news to peers that had all been asked already: an answer
        /// that did not take (an entry refused, lost with a session of another peer, or
        /// pushed out while it waited) is asked for again, each time after twice the wait.
        var repeats = 0
    }

    private(set) var lacking: [ConversationID: Lack] = [:]

    /// The longest wait between two requests for one lack once every holder was asked: a
    /// peer that claims what it never sends costs one small request this often, at most.
    static let maxRepeatDelay: Duration = .seconds(30)

    var isEmpty: Bool { lacking.isEmpty }

    /// A peer's clock shows more than this node holds; `news`: more than that peer was
    /// known to hold, which makes it worth asking again.
    mutating func note(_ conversation: ConversationID, holder: NodeID, news: Bool, at now: ContinuousClock.Instant) {
        if lacking[conversation] == nil { lacking[conversation] = Lack(since: now) }
        if news {
            lacking[conversation]?.asked.remove(holder)
            lacking[conversation]?.repeats = 0
        }
    }

    /// The conversations whose lack is older than `delay` and whose last request, if any,
    /// had `retry` to be answered.
    func due(at now: ContinuousClock.Instant, delay: Duration, retry: Duration) -> [(ConversationID, Lack)] {
        lacking.filter { _, lack in
            now - lack.since >= delay && lack.lastAsked.map { now - $0 >= retry } ?? true
        }
        .sorted { $0.key < $1.key }
    }

    /// Whom to ask among `holders` (sorted): one not asked since its news; else, once the
    /// doubled wait since the last request has passed, each in turn again.
    func holder(
        for lack: Lack, among holders: [NodeID], at now: ContinuousClock.Instant, retry: Duration
    ) -> NodeID? {
        if let fresh = holders.first(where: { !lack.asked.contains($0) }) { return fresh }
        guard !holders.isEmpty, let last = lack.lastAsked else { return nil }
        let wait = min(retry * (1 << min(lack.repeats + 1, 16)), Self.maxRepeatDelay)
        guard now - last >= wait else { return nil }
        return holders[lack.repeats % holders.count]
    }

    mutating func asked(_ peer: NodeID, for conversation: ConversationID, at now: ContinuousClock.Instant) {
        guard var lack = lacking[conversation] else { return }
        if !lack.asked.insert(peer).inserted { lack.repeats += 1 }
        lack.lastAsked = now
        lacking[conversation] = lack
    }

    /// Nothing is missing any more, or no connected peer holds it.
    mutating func forget(_ conversation: ConversationID) {
        lacking[conversation] = nil
    }
}
