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
        /// Shown by the first clock a peer sent of a conversation of the tree over a lazy
        /// link (a session that opened, a room newly shared, §18.8): asked for at the next
        /// timer rather than after the graft delay, since nothing is pushed over that link
        /// and no eager link brings what the other side of a healed partition wrote.
        /// Announcements still wait for the delay: on a loaded machine (100 nodes on 2
        /// cores) the copy passed on along the tree is often still queued when one arrives,
        /// and asking at once made 12.9 copies per entry where waiting made 4.9.
        var atLinkStart = false
        /// Peers asked since their clocks last brought news: each is asked once per news,
        /// so a peer that claims what it never sends costs one request per claim.
        var asked: Set<NodeID> = []
        var lastAsked: ContinuousClock.Instant?
        /// Requests since the last news to peers that had all been asked already: an answer
        /// that did not take (an entry refused, lost with a session of another peer, or
        /// pushed out while it waited) is asked for again, each time after twice the wait.
        var repeats = 0
        /// The last request: whom, this node's clock then, and what that peer claimed.
        var lastRequest: (peer: NodeID, mine: VectorClock, claim: VectorClock)?
        /// When each peer was last asked for this lack.
        var askedAt: [NodeID: ContinuousClock.Instant] = [:]
        /// When the peer last asked last brought an entry it claimed and this node lacked
        /// when it asked: while its answer keeps coming, nobody else is asked.
        var lastAnswer: ContinuousClock.Instant?
        /// Requests in a row to each peer after which nothing it claimed arrived: such a
        /// peer is asked after every other (a peer claiming what it never sends cannot keep
        /// the request from one that sends).
        var fruitless: [NodeID: Int] = [:]
    }

    private(set) var lacking: [ConversationID: Lack] = [:]

    /// The longest wait between two requests for one lack once every holder was asked: a
    /// peer that claims what it never sends costs one small request this often, at most.
    static let maxRepeatDelay: Duration = .seconds(30)
    /// The longest an answer still coming keeps the next holder from being asked.
    static let maxAnswerWait: Duration = .seconds(10)

    var isEmpty: Bool { lacking.isEmpty }

    /// A peer's clock shows more than this node holds; `news`: more than that peer was
    /// known to hold, which makes it worth asking again.
    mutating func note(
        _ conversation: ConversationID, holder: NodeID, news: Bool, atLinkStart: Bool = false,
        at now: ContinuousClock.Instant
    ) {
        if lacking[conversation] == nil { lacking[conversation] = Lack(since: now) }
        if atLinkStart { lacking[conversation]?.atLinkStart = true }
        if news {
            lacking[conversation]?.asked.remove(holder)
            lacking[conversation]?.repeats = 0
        }
    }

    /// The conversations whose lack is older than `delay` and whose last request, if any,
    /// had `retry` to be answered, and brought nothing it was asked for in the last
    /// `retry`. An answer of hundreds of entries takes seconds on a loaded machine (100
    /// nodes on 2 cores): asking the next holder after a fixed second brought the same
    /// entries again, 4.5 copies of each entry stored from answers alone.
    func due(at now: ContinuousClock.Instant, delay: Duration, retry: Duration) -> [(ConversationID, Lack)] {
        lacking.filter { _, lack in
            guard lack.atLinkStart || now - lack.since >= delay else { return false }
            guard let asked = lack.lastAsked else { return true }
            guard now - asked >= retry else { return false }
            // A peer that trickles what it claimed keeps the others from being asked for
            // `maxAnswerWait` at most.
            return lack.lastAnswer.map { now - $0 >= retry } ?? true || now - asked >= Self.maxAnswerWait
        }
        .sorted { $0.key < $1.key }
    }

    /// An entry from `peer` was stored: if that peer was asked last for the conversation,
    /// claimed the entry and this node lacked it then, the answer is coming.
    mutating func stored(
        _ conversation: ConversationID, author: NodeID, seq: UInt64, from peer: NodeID, at now: ContinuousClock.Instant
    ) {
        guard let last = lacking[conversation]?.lastRequest, last.peer == peer, seq > last.mine[author],
            seq <= last.claim[author]
        else { return }
        lacking[conversation]?.lastAnswer = now
    }

    /// Whom to ask among `holders` (each with the clock it announced): one not asked since
    /// its news; first those whose requests brought what they claimed, then the one asked
    /// longest ago (never, first), then the one that holds the most this node lacks; else,
    /// once the doubled wait since the last request has passed, each in turn again.
    ///
    /// Asking the one that sorted first whenever it had news kept a message another peer
    /// held from a node for 12 s in the 1,000-node simulation: in a group, receipts give
    /// peers news every couple of seconds. Taking turns also keeps a member that writes, and
    /// claims far more than it sends, from taking every request: it is asked every other
    /// time at most.
    func holder(
        for lack: Lack, among holders: [(peer: NodeID, clock: VectorClock)], mine: VectorClock,
        at now: ContinuousClock.Instant, retry: Duration
    ) -> NodeID? {
        let ranked = holders.map { holder in
            (
                peer: holder.peer, fruitless: lack.fruitless[holder.peer] ?? 0,
                waited: lack.askedAt[holder.peer].map { now - $0 } ?? .seconds(Int64.max),
                lacking: mine.lacking(holder.clock)
            )
        }
        .sorted { a, b in
            (a.fruitless, b.waited, b.lacking, a.peer) < (b.fruitless, a.waited, a.lacking, b.peer)
        }
        .map(\.peer)
        if let fresh = ranked.first(where: { !lack.asked.contains($0) }) { return fresh }
        guard !ranked.isEmpty, let last = lack.lastAsked else { return nil }
        let wait = min(retry * (1 << min(lack.repeats + 1, 16)), Self.maxRepeatDelay)
        guard now - last >= wait else { return nil }
        return ranked[lack.repeats % ranked.count]
    }

    /// Whether the last request brought anything its peer claimed, now that it had time to.
    mutating func judgeLastRequest(_ conversation: ConversationID, mine: VectorClock) {
        guard var lack = lacking[conversation], let last = lack.lastRequest else { return }
        let brought = last.claim.sortedEntries.contains { author, seq in
            seq > last.mine[author] && mine[author] > last.mine[author]
        }
        lack.fruitless[last.peer] = brought ? nil : (lack.fruitless[last.peer] ?? 0) + 1
        lack.lastRequest = nil
        lacking[conversation] = lack
    }

    mutating func asked(
        _ peer: NodeID, for conversation: ConversationID, mine: VectorClock, claim: VectorClock,
        at now: ContinuousClock.Instant
    ) {
        guard var lack = lacking[conversation] else { return }
        if !lack.asked.insert(peer).inserted { lack.repeats += 1 }
        lack.lastAsked = now
        lack.askedAt[peer] = now
        lack.lastRequest = (peer, mine, claim)
        lack.lastAnswer = nil
        lacking[conversation] = lack
    }

    /// Nothing is missing any more, or no connected peer holds it.
    mutating func forget(_ conversation: ConversationID) {
        lacking[conversation] = nil
    }
}

extension VectorClock {
    /// How many entries `other` names that this clock does not (saturating: a claim is not
    /// bounded by anything held).
    func lacking(_ other: VectorClock) -> UInt64 {
        other.sortedEntries.reduce(UInt64(0)) { sum, item in
            let missing = item.seq > self[item.author] ? item.seq - self[item.author] : 0
            let (total, overflow) = sum.addingReportingOverflow(missing)
            return overflow ? .max : total
        }
    }
}
