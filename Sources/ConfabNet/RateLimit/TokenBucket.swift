import NIOCore

/// A token bucket that may go into debt: a message is never split or refused, it is taken
/// whole and the debt is paid back by waiting before reading more.
public struct TokenBucket: Sendable {
    public let rate: Double
    public let burst: Double
    private var tokens: Double
    private var updated: NIODeadline

    public init(rate: Double, burst: Double, now: NIODeadline) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        updated = now
    }

    /// Takes `count` tokens; returns how long the taker should wait before the bucket is
    /// out of debt (zero when it is not in debt).
    public mutating func take(_ count: Int, now: NIODeadline) -> TimeAmount {
        tokens = self.tokens(at: now) - Double(count)
        updated = max(updated, now)
        return wait(now: now)
    }

    /// How long from `now` until the bucket is out of debt.
    public func wait(now: NIODeadline) -> TimeAmount {
        let tokens = self.tokens(at: now)
        return tokens >= 0 ? .zero : .nanoseconds(Int64((-tokens / rate * 1e9).rounded(.up)))
    }

    /// A full bucket is the same as a new one.
    public func isFull(now: NIODeadline) -> Bool { tokens(at: now) >= burst }

    private func tokens(at now: NIODeadline) -> Double {
        let elapsed = max(0, Double((now - updated).nanoseconds) / 1e9)
        return min(burst, tokens + elapsed * rate)
    }
}
