import ConfabModel

/// How fast a person's node takes the new entries of each other author (Protocol.md §12
/// step 4). One member, or a peer passing on a member's flood, could otherwise make this
/// node verify, write and fsync thousands of tiny messages or receipts a second for as
/// long as it likes. Going over the rate defers, it never refuses: the author's entries
/// wait aside (`HeldEntries`) and are taken as its budget refills.
///
/// Only **new** entries count: an entry its author wrote before this node started, or
/// longer than `historyAge` before it arrived (by the author's own timestamp), is history,
/// and catching up on history goes at full speed whatever its size. This node's own
/// entries never count.
public struct AuthorRateLimit: Sendable, Equatable {
    /// Sustained entries per second per author.
    public var entriesPerSecond: Double
    /// Sustained bytes (encoded entries) per second per author.
    public var bytesPerSecond: Double
    /// Entries an author that was quiet may add at full speed.
    public var burstEntries: Double
    /// Bytes an author that was quiet may add at full speed.
    public var burstBytes: Double
    /// An entry whose timestamp is at least this much older than this node's clock when it
    /// arrives is history.
    public var historyAge: Duration

    /// 2,000 entries and 2 MiB a second, bursts of 100,000 entries and 64 MiB, history
    /// older than 5 minutes. A script piping 100,000 lines, or a long history caught up
    /// after being away, goes at full speed (tens of thousands of lines are what scripts
    /// pipe); a flood kept up beyond that takes about a fifth of what this node can store
    /// (10,000 entries a second on a 2-core machine) and, once over its rate, is written a
    /// batch per timer tick instead of a transaction per message. No person types or reads
    /// 2,000 messages a second.
    public static let `default` = AuthorRateLimit(
        entriesPerSecond: 2_000, bytesPerSecond: 2_097_152, burstEntries: 100_000, burstBytes: 67_108_864,
        historyAge: .seconds(300))

    public init(
        entriesPerSecond: Double, bytesPerSecond: Double, burstEntries: Double, burstBytes: Double,
        historyAge: Duration = .seconds(300)
    ) {
        precondition(entriesPerSecond > 0 && bytesPerSecond > 0, "rates must be positive")
        precondition(burstEntries >= 1 && burstBytes >= 1, "bursts must be positive")
        self.entriesPerSecond = entriesPerSecond
        self.bytesPerSecond = bytesPerSecond
        self.burstEntries = burstEntries
        self.burstBytes = burstBytes
        self.historyAge = historyAge
    }
}

/// One token bucket per author, in entries and in bytes, that may go into debt: what was
/// stored is charged whole, and while an author is in debt its new entries wait.
struct AuthorBudgets {
    let limit: AuthorRateLimit

    private struct Bucket {
        var entries: Double
        var bytes: Double
        var updated: ContinuousClock.Instant

        func isFull(_ limit: AuthorRateLimit) -> Bool {
            entries >= limit.burstEntries && bytes >= limit.burstBytes
        }
    }

    private var buckets: [NodeID: Bucket] = [:]
    /// Authors charged into debt, and maybe out of it since.
    private var debtors: Set<NodeID> = []
    /// Buckets full again are forgotten beyond this many, so that many authors cost a
    /// bounded table (a full bucket is the same as a new one).
    static let maxBuckets = 4096

    init(limit: AuthorRateLimit) {
        self.limit = limit
    }

    /// Whether `author` has spent more than its budget: its new entries wait.
    func inDebt(_ author: NodeID, now: ContinuousClock.Instant) -> Bool {
        guard let bucket = buckets[author].map({ refilled($0, now: now) }) else { return false }
        return bucket.entries < 0 || bucket.bytes < 0
    }

    /// Whether any author is in debt: when none is and nothing waits, entries are not even
    /// looked at.
    mutating func anyInDebt(now: ContinuousClock.Instant) -> Bool {
        if !debtors.isEmpty { debtors = debtors.filter { inDebt($0, now: now) } }
        return !debtors.isEmpty
    }

    /// Charges one stored entry of `bytes` to `author`.
    mutating func charge(_ author: NodeID, bytes: Int, now: ContinuousClock.Instant) {
        if buckets[author] == nil, buckets.count >= Self.maxBuckets {
            buckets = buckets.filter { !refilled($0.value, now: now).isFull(limit) }
        }
        var bucket =
            buckets[author].map { refilled($0, now: now) }
            ?? Bucket(entries: limit.burstEntries, bytes: limit.burstBytes, updated: now)
        bucket.entries -= 1
        bucket.bytes -= Double(bytes)
        buckets[author] = bucket
        if bucket.entries < 0 || bucket.bytes < 0 { debtors.insert(author) }
    }

    private func refilled(_ bucket: Bucket, now: ContinuousClock.Instant) -> Bucket {
        let elapsed = max(0, (now - bucket.updated) / .seconds(1))
        return Bucket(
            entries: min(limit.burstEntries, bucket.entries + elapsed * limit.entriesPerSecond),
            bytes: min(limit.burstBytes, bucket.bytes + elapsed * limit.bytesPerSecond),
            updated: max(now, bucket.updated))
    }
}
