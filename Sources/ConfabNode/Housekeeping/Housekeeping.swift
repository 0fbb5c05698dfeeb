/// The node's timed duties, each named with its own period, on one clock that ticks every
/// 300 ms: which duties are due at a tick is decided here, what each does is the node's.
/// Pure, so the schedule is tested tick by tick without waiting.
struct Housekeeping: Sendable {
    /// One tick: the shortest period, and how late a duty may run.
    static let tick = Duration.milliseconds(300)

    enum Duty: CaseIterable, Sendable {
        /// Delivered receipts that came due, and what the engine waits on (grafts, pushes).
        case engineTimers
        /// Chunks to ask for again, fetches that stalled.
        case fileTimers
        /// Entries received are committed without waiting for fsync (they can be fetched
        /// again); within a second, the commits since the last fsync get one.
        case syncReceived
        /// The log goes into the database file while nothing is being written.
        case checkpoint
        /// Who counts as chosen changes only by hand or with a new conversation.
        case chosenPeers
        /// Another process committed to the store.
        case externalWrites
        /// Peers whose beacons stopped are offline; typing not refreshed has stopped.
        case presence
        /// The block list, re-read (a CLI command may have changed it).
        case trust
        case metrics
        /// A relay's allow-list re-read; the stored bytes a person's metrics show.
        case storageFigures
        /// Strangers seen long ago are forgotten.
        case pruneStrangers

        /// How often the duty runs.
        var period: Duration {
            switch self {
            case .engineTimers, .fileTimers, .checkpoint, .externalWrites, .presence, .metrics:
                Housekeeping.tick
            case .syncReceived: .milliseconds(900)
            // A block takes effect at once through the control socket or the external-write
            // signal; this poll is the backstop, and reading the block list every tick was a
            // good part of an idle node's CPU.
            case .chosenPeers, .storageFigures, .trust: .seconds(3)
            case .pruneStrangers: .seconds(300)
            }
        }

        /// The period in ticks (at least one).
        var everyTicks: Int {
            max(1, Int((period / Housekeeping.tick).rounded()))
        }
    }

    private(set) var ticks = 0

    /// Advances one tick and says which duties are due, in the order they run.
    mutating func next() -> [Duty] {
        ticks += 1
        return Duty.allCases.filter { ticks % $0.everyTicks == 0 }
    }
}
