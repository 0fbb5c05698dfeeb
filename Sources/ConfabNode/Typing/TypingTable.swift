import ConfabClient
import ConfabModel
import ConfabNet
import NIOCore

/// Who is typing where, as peers said it on their own sessions (Protocol.md §10.2). Each
/// indication lasts `timeout` unless refreshed, and ends sooner with the peer's stop, its
/// message, or its session. A peer gets `rate` typing messages a second after a burst of
/// `burst` (more are dropped unread), and at most `maxConversationsPerPeer` at once (a new
/// one displaces its oldest), so whatever a peer sends, this table holds at most that many
/// per session.
struct TypingTable {
    static let timeout: TimeAmount = .seconds(5)
    static let maxConversationsPerPeer = 4
    static let rate = 2.0
    static let burst = 10.0

    struct Key: Hashable, Comparable {
        let conversation: ConversationID
        let peer: NodeID

        static func < (a: Key, b: Key) -> Bool {
            (a.conversation, a.peer) < (b.conversation, b.peer)
        }
    }

    /// When each indication shown now ends, unless refreshed.
    private(set) var expiries: [Key: NIODeadline] = [:]
    private var buckets: [NodeID: TokenBucket] = [:]
    /// Peers over their rate this session, whose drops were already logged.
    private var flooding: Set<NodeID> = []

    var isEmpty: Bool { expiries.isEmpty }

    enum Admission: Equatable {
        case admitted
        /// Over the rate: dropped. `first` for the first drop of the peer's session.
        case dropped(first: Bool)
    }

    /// Whether a typing message from `peer` is within its rate. Asked before anything else
    /// is looked at, so a flood costs no more than this.
    mutating func admit(_ peer: NodeID, now: NIODeadline) -> Admission {
        var bucket = buckets[peer] ?? TokenBucket(rate: Self.rate, burst: Self.burst, now: now)
        // Only what is admitted is charged: a dropped message leaves no debt.
        guard bucket.take(1, now: now) == .zero else {
            return .dropped(first: flooding.insert(peer).inserted)
        }
        buckets[peer] = bucket
        return .admitted
    }

    /// The peer is typing: `shown` when it was not shown before; `displaced`, the
    /// peer's oldest indications it pushed out.
    mutating func start(_ key: Key, now: NIODeadline) -> (shown: Bool, displaced: [Key]) {
        let shown = expiries[key] == nil
        var displaced: [Key] = []
        if shown {
            let others = expiries.filter { $0.key.peer == key.peer }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
            for (old, _) in others.prefix(max(0, others.count - Self.maxConversationsPerPeer + 1)) {
                expiries[old] = nil
                displaced.append(old)
            }
        }
        expiries[key] = now + Self.timeout
        return (shown, displaced)
    }

    /// The indication ended; true if it was shown.
    mutating func stop(_ key: Key) -> Bool {
        expiries.removeValue(forKey: key) != nil
    }

    /// The peer's session ended: its indications, which end with it.
    mutating func peerGone(_ peer: NodeID) -> [Key] {
        buckets[peer] = nil
        flooding.remove(peer)
        return remove { $0.peer == peer }
    }

    /// Indications not refreshed in time.
    mutating func expire(now: NIODeadline) -> [Key] {
        let ended = expiries.filter { $0.value <= now }.keys
        return remove { ended.contains($0) }
    }

    /// Every indication (the setting was turned off).
    mutating func removeAll() -> [Key] {
        remove { _ in true }
    }

    private mutating func remove(where matches: (Key) -> Bool) -> [Key] {
        let removed = expiries.keys.filter(matches).sorted()
        for key in removed { expiries[key] = nil }
        return removed
    }
}
