import NIOCore

/// How long to wait before the next beacon (Protocol.md §11.3): every `fast` for a while
/// after the node starts or its networks change, so peers meet within a second or two; then
/// each wait twice the last, up to `slow`, so an idle LAN of many nodes carries little.
/// On a LAN of more keys than `lanRate` beacons a second at `slow` would allow, the slow
/// pace stretches with the keys heard, up to `crowded`: every node hears every beacon, and
/// checking 200 nodes' beacons every 30 s was most of an idle node's CPU in an office.
/// Jitter is the announcer's; this is the nominal pace, a pure value tested step by step.
public struct BeaconSchedule: Sendable, Equatable {
    public var fast: TimeAmount
    public var slow: TimeAmount
    /// How long the fast pace lasts after a start or a change.
    public var fastPhase: TimeAmount
    /// The longest slow wait, however many keys are heard: a count anyone can raise with
    /// made-up keys, so it may only stretch the pace this far.
    public var crowded: TimeAmount
    /// Beacons a second the whole LAN should carry once every node is at its slow pace.
    public var lanRate: Double

    private var elapsed: TimeAmount = .zero
    private var last: TimeAmount = .zero

    public static let standard = BeaconSchedule(
        fast: .milliseconds(1500), slow: .seconds(30), fastPhase: .seconds(15), crowded: .seconds(75), lanRate: 3)

    /// How far back a key's accepted beacon counts it as heard (`next(keysHeard:)`): two of
    /// the longest waits, so that keys at the crowded pace are all counted.
    public static let hearingWindow = TimeAmount.seconds(150)

    /// Always the same pace (tests that want beacons at a fixed rate).
    public static func constant(_ interval: TimeAmount) -> BeaconSchedule {
        BeaconSchedule(fast: interval, slow: interval, fastPhase: .zero)
    }

    public init(
        fast: TimeAmount, slow: TimeAmount, fastPhase: TimeAmount, crowded: TimeAmount? = nil, lanRate: Double = 3
    ) {
        self.fast = fast
        self.slow = max(slow, fast)
        self.fastPhase = fastPhase
        self.crowded = max(crowded ?? slow, self.slow)
        self.lanRate = lanRate
    }

    /// The wait before the next beacon, counting it as spent; `keysHeard`: the other keys
    /// whose beacons were accepted within `hearingWindow`.
    public mutating func next(keysHeard: Int = 0) -> TimeAmount {
        let wait = elapsed < fastPhase || last == .zero ? fast : min(slowPace(keysHeard: keysHeard), last + last)
        last = wait
        elapsed = elapsed + wait
        return wait
    }

    /// The slow wait on a LAN of `keysHeard` other keys: `slow`, or as long as it takes the
    /// LAN (them and this node) to carry `lanRate` beacons a second, up to `crowded`.
    public func slowPace(keysHeard: Int) -> TimeAmount {
        let lan = Double(max(0, keysHeard) + 1) / lanRate
        let nanoseconds = min(Double(crowded.nanoseconds), max(Double(slow.nanoseconds), lan * 1e9))
        return .nanoseconds(Int64(nanoseconds))
    }

    /// The networks changed (or the node started): fast again.
    public mutating func restart() {
        elapsed = .zero
        last = .zero
    }
}
