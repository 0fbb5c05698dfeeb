import Dispatch
import GRDB
import Synchronization

/// Copies the write-ahead log into the database file away from the write path.
///
/// By SQLite's default, the connection that commits once the log passes 1,000 pages does
/// the copy itself, with two fsyncs, inside that commit: a few milliseconds, every hundred
/// messages or so, which set the node's p99 one-way latency (4.7–4.9 ms, against 2.3 ms
/// with no checkpoint in any commit). A checkpoint on another thread while commits go on
/// is no better: its writes and fsyncs queue at the disk before the commits' own fsyncs.
/// So a connection of its own runs a passive checkpoint once the store has been idle for
/// a moment (`idle(transactions:)`), which a messenger mostly is. Under a sustained burst
/// the writer still checkpoints by itself, far less often (`writerThreshold`): pages
/// written again and again are copied once per checkpoint, not once per thousand pages of
/// log. The same threshold bounds the log of a process without a node.
final class Checkpointer: Sendable {
    /// Pages of log (4 KiB each) after which a commit still checkpoints by itself.
    static let writerThreshold = 4096

    private let connection: DatabaseQueue
    private let queue = DispatchQueue(label: "confab.store.checkpoint", qos: .utility)
    private let running = Mutex(false)
    private let idleCheck = Mutex(IdleCheck())

    init(path: String) throws {
        var config = Configuration()
        // A passive checkpoint never waits; anything else here should not wait long.
        config.busyMode = .timeout(10)
        connection = try DatabaseQueue(path: path, configuration: config)
    }

    /// A passive checkpoint now, on this thread: returns the pages in the log and how many
    /// of them are in the database file (all of them, unless a reader still needs some).
    @discardableResult
    func checkpoint() throws -> (log: Int, copied: Int) {
        try connection.inDatabase { db in
            guard let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)") else { return (0, 0) }
            return (row[1] ?? 0, row[2] ?? 0)
        }
    }

    /// Called a few times a second with the store's transaction count: checkpoints in the
    /// background when nothing committed since the previous call and something did since
    /// the last checkpoint.
    func idle(transactions: Int) {
        if idleCheck.withLock({ $0.due(transactions: transactions) }) { checkpointInBackground() }
    }

    /// A passive checkpoint on the checkpointer's thread, unless one is already running
    /// there (a slow disk must not pile them up). Errors wait for the next one: the log
    /// only grows meanwhile, and the writer's own threshold bounds it.
    func checkpointInBackground() {
        let start = running.withLock { running in
            defer { running = true }
            return !running
        }
        guard start else { return }
        queue.async { [self] in
            _ = try? checkpoint()
            running.withLock { $0 = false }
        }
    }
}

/// When the store is idle enough for a checkpoint: nothing committed since the previous
/// look, and something since the last checkpoint.
struct IdleCheck {
    /// The store's transaction count at the previous look, and at the last checkpoint.
    private var previous = 0
    private var checkpointed = 0

    mutating func due(transactions: Int) -> Bool {
        defer { previous = transactions }
        guard transactions == previous, transactions != checkpointed else { return false }
        checkpointed = transactions
        return true
    }
}
