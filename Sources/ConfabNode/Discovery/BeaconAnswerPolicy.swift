import ConfabClient
import ConfabModel

/// When a beacon is answered with one of ours at once (Protocol.md §11.3). An idle node
/// beacons only every 30 s, so a node that just arrived (or `confab doctor`) would wait
/// that long to hear it; instead, a beacon from a key this node has no session with is
/// answered at once — each key at most every `perKey`, and all keys together at most once
/// a `globalGap`, so a flood of beacons from fresh keys makes this node beacon once a
/// second, no more.
///
/// Pure and driven by the caller's clock.
struct BeaconAnswerPolicy {
    static let perKey: Duration = .seconds(30)
    static let globalGap: Duration = .seconds(1)
    /// Keys remembered; the oldest are forgotten beyond this.
    static let memory = 1024

    private var answered: [NodeID: ContinuousClock.Instant] = [:]
    private var last: ContinuousClock.Instant?

    /// Whether to answer `key`'s beacon now; if so, counted as answered.
    mutating func shouldAnswer(_ key: NodeID, now: ContinuousClock.Instant) -> Bool {
        if let last, now - last < Self.globalGap { return false }
        if let previous = answered[key], now - previous < Self.perKey { return false }
        if answered.count >= Self.memory { answered = answered.filter { now - $0.value < Self.perKey } }
        if answered.count >= Self.memory { return false }
        answered[key] = now
        last = now
        return true
    }
}
