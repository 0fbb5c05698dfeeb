import ConfabModel
import NIOConcurrencyHelpers
import NIOCore

/// How many entries each peer may send per second, with bursts: one token bucket per peer
/// key, shared by all of that peer's sessions, so reconnecting does not refill it.
public final class EntryRateLimiter: Sendable {
    public let entriesPerSecond: Double
    public let burst: Double
    private let buckets = NIOLockedValueBox<[NodeID: TokenBucket]>([:])
    private let pauses = NIOLockedValueBox<Int>(0)

    /// Buckets of peers that have been quiet long enough to be full again are forgotten
    /// beyond this many, so a stream of new keys cannot grow the table without bound.
    private static let maxBuckets = 4096

    public init(entriesPerSecond: Double, burst: Double) {
        precondition(entriesPerSecond > 0 && burst >= 1, "rate and burst must be positive")
        self.entriesPerSecond = entriesPerSecond
        self.burst = burst
    }

    /// Times a peer's entries had to wait because it was over its rate.
    public var pauseCount: Int { pauses.withLockedValue { $0 } }

    /// Takes `count` tokens from `peer`'s bucket; returns how long to stop reading.
    func take(_ count: Int, from peer: NodeID, now: NIODeadline) -> TimeAmount {
        buckets.withLockedValue { buckets in
            if buckets[peer] == nil, buckets.count >= Self.maxBuckets {
                buckets = buckets.filter { !$0.value.isFull(now: now) }
            }
            var bucket = buckets[peer] ?? TokenBucket(rate: entriesPerSecond, burst: burst, now: now)
            let wait = bucket.take(count, now: now)
            buckets[peer] = bucket
            return wait
        }
    }

    /// How long until `peer`'s bucket is out of debt.
    func wait(for peer: NodeID, now: NIODeadline) -> TimeAmount {
        buckets.withLockedValue { $0[peer]?.wait(now: now) ?? .zero }
    }

    func notePause() {
        pauses.withLockedValue { $0 += 1 }
    }
}
