/// The node's timed duties, each named with its own period, on one clock that ticks every
/// 300 ms: which duties are due at a tick is decided here, what each does is the node's.
/// Pure, so the schedule is tested tick by tick without waiting.
///
/// While nothing waits on a timer (no receipt paced, no transfer, no one typing, nothing
/// received for a few seconds) the node sleeps `idleTicks` ticks at once, and anything that
/// happens wakes it: on an office LAN each wake-up of each of 200 processes costs a context
/// switch on a shared core, and the ticks were a quarter of an idle node's CPU.
struct Housekeeping: Sendable {
    /// One tick: the shortest period, and how late a duty may run.
    static let tick = Duration.milliseconds(300)
    /// Ticks slept at once while the node is idle: 3 s, within which a peer whose beacons
    /// stopped is seen offline (at the earliest 4.5 s after its last, §11.5) and a write by
    /// another process to the store is noticed (a process attached to the node asks it
    /// instead, which wakes it). At 1.2 s, an idle office node spent a tenth of its CPU here.
    static let idleTicks = 10
    /// How long after the last thing that happened (a session message, a write) the node
    /// keeps ticking at the full pace.
    static let quietAfter = Duration.seconds(3)

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
        /// Who counts as chosen changes only by hand or with a new conversation: both are
        /// commits to the store.
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
            // good part of an idle node's CPU. Both it and the chosen peers are read only
            // after the store moved (`readsOnlyTheStore`).
            case .chosenPeers, .storageFigures, .trust: .seconds(3)
            case .pruneStrangers: .seconds(300)
            }
        }

        /// The period in ticks (at least one).
        var everyTicks: Int {
            max(1, Int((period / Housekeeping.tick).rounded()))
        }

        /// Whether the duty only re-reads what the store holds, so that it has nothing to
        /// catch while the store's generation stands still (`ConfabStore.generation`).
        var readsOnlyTheStore: Bool {
            switch self {
            case .chosenPeers, .trust: true
            default: false
            }
        }
    }

    /// A duty that reads only the store runs at its period only if the store moved since
    /// it last ran, and in any case once in this many of its periods: a backstop should
    /// something reach the store that the generation does not count.
    static let backstopPeriods = 20

    private(set) var ticks = 0
    /// The store's generation when each duty that reads only the store last ran, and how
    /// many of its periods it has skipped since.
    private var ranAt: [Duty: (generation: Int, skipped: Int)] = [:]

    /// Advances `elapsed` ticks (more than one after an idle sleep) and says which duties
    /// are due, in the order they run: each whose period ended in them, once; `store` is
    /// the store's generation now.
    mutating func next(store generation: Int = 0, elapsed: Int = 1) -> [Duty] {
        let before = ticks
        ticks += max(1, elapsed)
        return Duty.allCases.filter { duty in
            guard ticks / duty.everyTicks != before / duty.everyTicks else { return false }
            guard duty.readsOnlyTheStore else { return true }
            if let last = ranAt[duty], last.generation == generation, last.skipped + 1 < Self.backstopPeriods {
                ranAt[duty] = (generation, last.skipped + 1)
                return false
            }
            ranAt[duty] = (generation, 0)
            return true
        }
    }
}
