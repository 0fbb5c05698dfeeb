import NIOCore

/// How long to wait before the next beacon (Protocol.md §11.3): every `fast` for a while
/// after the node starts or its networks change, so peers meet within a second or two; then
/// each wait twice the last, up to `slow`, so an idle LAN of many nodes carries little.
/// Jitter is the announcer's; this is the nominal pace, a pure value tested step by step.
public struct BeaconSchedule: Sendable, Equatable {
    public var fast: TimeAmount
    public var slow: TimeAmount
    /// How long the fast pace lasts after a start or a change.
    public var fastPhase: TimeAmount

    private var elapsed: TimeAmount = .zero
    private var last: TimeAmount = .zero

    public static let standard = BeaconSchedule(fast: .milliseconds(1500), slow: .seconds(30), fastPhase: .seconds(15))

    /// Always the same pace (tests that want beacons at a fixed rate).
    public static func constant(_ interval: TimeAmount) -> BeaconSchedule {
        BeaconSchedule(fast: interval, slow: interval, fastPhase: .zero)
    }

    public init(fast: TimeAmount, slow: TimeAmount, fastPhase: TimeAmount) {
        self.fast = fast
        self.slow = max(slow, fast)
        self.fastPhase = fastPhase
    }

    /// The wait before the next beacon, counting it as spent.
    public mutating func next() -> TimeAmount {
        let wait = elapsed < fastPhase || last == .zero ? fast : min(slow, last + last)
        last = wait
        elapsed = elapsed + wait
        return wait
    }

    /// The networks changed (or the node started): fast again.
    public mutating func restart() {
        elapsed = .zero
        last = .zero
    }
}
