import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Copies the write-ahead log into the database file away from the write path.
///
/// By SQLite's default, the connection that commits once the log passes 1,000 pages does
/// the copy itself, with two fsyncs, inside that commit. For one message, that is a few
/// milliseconds every hundred messages or so: it set the node's p99 one-way latency
/// (4.7–4.9 ms, against 2.3 ms with no checkpoint in any commit). For an initial sync,
/// the node's one thread of work waited on those fsyncs while the other core idled.
///
/// So the writer's connection reports the log's size after each commit (SQLite's WAL
/// hook, which replaces its own checkpoint), and a connection of its own runs a passive
/// checkpoint on a thread of its own: it takes no lock a writer waits for, and commits go
/// on appending to the log meanwhile. It runs once the store has been idle for a moment
/// (`idle(transactions:)`), which a messenger mostly is, or once the log passes
/// a threshold under a sustained burst (`Thresholds`). A checkpoint on another thread still
/// queues its writes and fsyncs at the disk before the commits' own, so it waits for the
/// store to be idle as long as the log is small. Only past a higher threshold (the
/// checkpointer fell behind) does a commit checkpoint by itself, as SQLite would.
final class Checkpointer: Sendable {
    /// Sizes of the log, in pages (4 KiB each).
    struct Thresholds: Sendable {
        /// After which a checkpoint starts in the background even while commits go on.
        var background = 2048
        /// After which the committing connection checkpoints by itself.
        var writer = 4096
    }

    let thresholds: Thresholds
    private let connection: DatabaseQueue
    private let queue = DispatchQueue(label: "confab.store.checkpoint", qos: .utility)
    private let running = Mutex(false)
    private let idleCheck = Mutex(IdleCheck())
    private let finished = Mutex(0)
    private let scrubbing = Mutex(ScrubCount())

    init(path: String, thresholds: Thresholds = Thresholds()) throws {
        self.thresholds = thresholds
        var config = Configuration()
        // A passive checkpoint never waits. A scrub (a truncating checkpoint) waits for
        // readers and the writer, on the thread of whoever deleted something: 10 ms at most,
        // and the node's next tick tries again.
        config.busyMode = .timeout(0.01)
        connection = try DatabaseQueue(path: path, configuration: config)
    }

    /// Has the writer's connection tell this checkpointer the log's size after each commit,
    /// instead of checkpointing by itself at 1,000 pages. The checkpointer must outlive the
    /// connection (the store holds both, and commits only through itself).
    func watch(_ writer: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            writer.sqliteConnection,
            { context, connection, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().committed(
                    pages: Int(pages), on: connection)
                return SQLITE_OK
            }, context)
    }

    private func committed(pages: Int, on connection: OpaquePointer?) {
        if pages >= thresholds.writer {
            // As SQLite's own hook does; a failure leaves the log to the next commit.
            _ = sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        } else if pages >= thresholds.background {
            checkpointInBackground()
        }
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
            finished.withLock { $0 += 1 }
            running.withLock { $0 = false }
        }
    }

    /// Checkpoints run in the background so far.
    var backgroundCheckpoints: Int { finished.withLock { $0 } }

    // MARK: Scrubbing what was deleted

    /// A deletion is being written: the words it removes stay in the log's earlier frames
    /// (and in the file's pages until the log is copied over them) until `scrub` runs after
    /// its commit. Called inside the deletion's transaction once it has written, so that it
    /// holds the write lock: a scrub that starts after this cannot finish before the commit.
    func deletionWritten() {
        scrubbing.withLock { $0.written += 1 }
    }

    /// Whether a deletion was written since the last scrub that finished.
    var scrubDue: Bool { scrubbing.withLock { $0.written != $0.scrubbed } }

    /// Copies the whole log into the file and truncates it to nothing, on this thread; the
    /// file's deleted content was zeroed as it was deleted (`secure_delete`), so afterwards
    /// no file holds what was deleted. Returns false when a reader or a writer held on to
    /// the log (it waits 10 ms at most); the next call tries again.
    @discardableResult
    func scrub() -> Bool {
        let written = scrubbing.withLock { $0.written }
        let done =
            (try? connection.inDatabase { db in
                try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)").map { ($0[0] as Int?) == 0 } ?? false
            }) ?? false
        if done { scrubbing.withLock { $0.scrubbed = max($0.scrubbed, written) } }
        return done
    }

    /// A scrub on the checkpointer's thread if one is due and none is running there.
    func scrubInBackground() {
        guard scrubDue else { return }
        let start = running.withLock { running in
            defer { running = true }
            return !running
        }
        guard start else { return }
        queue.async { [self] in
            scrub()
            running.withLock { $0 = false }
        }
    }

    /// Waits for what runs on the checkpointer's thread, scrubs, and closes its connection.
    func close() throws {
        queue.sync {}
        scrub()
        try connection.close()
    }
}

/// Deletions written, and how many of them the last finished scrub covered.
struct ScrubCount {
    var written = 0
    var scrubbed = 0
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
