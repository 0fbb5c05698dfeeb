import Synchronization

/// What discovery did since it started, for `confab status` and the office benchmark:
/// where an idle node's time goes on a LAN of hundreds is mostly here.
public final class DiscoveryCounters: Sendable {
    /// Datagrams received on the discovery port.
    let datagrams = Atomic<Int>(0)
    /// Signatures checked: datagrams of this network that were not our own or replays.
    let verified = Atomic<Int>(0)
    /// Repeats of a key's last beacon the node had no use for, dropped unchecked.
    let repeats = Atomic<Int>(0)
    /// Beacons accepted and acted on (`DiscoveryService.onBeacon`).
    let accepted = Atomic<Int>(0)
    /// Beacons this node sent (each to every target).
    let sent = Atomic<Int>(0)

    public init() {}

    public var snapshot: Snapshot {
        Snapshot(
            datagrams: datagrams.load(ordering: .relaxed), verified: verified.load(ordering: .relaxed),
            repeats: repeats.load(ordering: .relaxed), accepted: accepted.load(ordering: .relaxed),
            sent: sent.load(ordering: .relaxed))
    }

    public struct Snapshot: Sendable, Equatable {
        public var datagrams: Int
        public var verified: Int
        public var repeats: Int
        public var accepted: Int
        public var sent: Int
    }
}
