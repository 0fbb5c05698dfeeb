import Foundation
import GRDB

/// The store's one write path (Protocol.md §8.0): every write — my messages from any front
/// end, entries received from peers, receipts, local flags — is handed here, and whatever
/// is waiting when the database is free is committed in one transaction before any of its
/// callers returns.
///
/// The first caller to find nothing committing becomes the committer: it takes every write
/// queued so far (its own among them), runs each in its own savepoint, commits, and wakes
/// the others, which return their own results. Callers arriving meanwhile queue for the
/// next commit. Alone, a write commits at once; under load, commits grow with the queue.
/// One write that fails is rolled back to its savepoint and fails alone; a commit that
/// fails fails every write in it.
///
/// A commit holding a durable write waits for fsync (`synchronous = FULL`); one holding only
/// writes that could be made again from elsewhere (entries received from peers) does not
/// (`NORMAL`: it survives the process being killed, not a power loss). The next durable
/// commit fsyncs the log with everything before it, and `syncIfNeeded` makes one when none
/// came, so what is not durable yet stays so only briefly.
final class GroupCommit: @unchecked Sendable {
    private let writer: any DatabaseWriter
    // Guards everything below; writers wait on it for their commit.
    private let condition = NSCondition()
    private var queued: [any QueuedWrite] = []
    private var committing = false
    private var counts = CommitStatistics()
    /// The connection's `synchronous` setting as last set here, nil before the first commit;
    /// only the committer reads or changes it. Never assumed: GRDB sets NORMAL on a pool's
    /// writer when it opens it in WAL mode, after the store's own setup has run.
    private var synchronousFull: Bool?
    /// Runs once per commit, after every write of the batch and inside its transaction.
    private let beforeCommit: @Sendable (Database) throws -> Void
    /// What the writes of the commit in progress asked to run once it is committed
    /// (`afterCommit`); only the committer's thread touches it.
    private var pendingAfterCommit: [() -> Void] = []

    init(writer: any DatabaseWriter, beforeCommit: @escaping @Sendable (Database) throws -> Void) {
        self.writer = writer
        self.beforeCommit = beforeCommit
    }

    var statistics: CommitStatistics {
        condition.lock()
        defer { condition.unlock() }
        return counts
    }

    /// Writes queued behind the commit in progress (tests wait on it to build a batch).
    var queuedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return queued.count
    }

    /// Runs `body` inside a transaction shared with the writes queued beside it, and returns
    /// once that transaction is committed (or throws `body`'s error, or the commit's).
    /// `body` must not call back into the store's writes.
    /// `durable`: whether the caller may be answered only once the write is on disk (false
    /// only for what can be fetched again).
    func write<T>(durable: Bool = true, _ body: (Database) throws -> T) throws -> T {
        try withoutActuallyEscaping(body) { body in
            // The body only runs before this call returns: on this thread, or on another
            // caller's while this one waits for it.
            let write = Write(body, durable: durable)
            condition.lock()
            queued.append(write)
            while !write.finished && committing { condition.wait() }
            if write.finished {
                condition.unlock()
                return try write.outcome()
            }
            committing = true
            let batch = queued
            queued.removeAll(keepingCapacity: true)
            condition.unlock()

            let synced = batch.contains { $0.durable }
            let committed = commit(batch, synced: synced)

            condition.lock()
            for write in batch { write.finished = true }
            committing = false
            if committed {
                counts.transactions += 1
                counts.writes += batch.count
                counts.largestBatch = max(counts.largestBatch, batch.count)
                if synced { counts.synced += 1 }
                counts.pendingSync = !synced
            }
            condition.broadcast()
            condition.unlock()
            return try write.outcome()
        }
    }

    /// Runs `action` once the commit that holds the calling write is done, before any of its
    /// writers returns, in the order the writes ran; not at all if the write or its commit
    /// fails. Only a write's body may call it (it runs on the committer's thread).
    func afterCommit(_ action: @escaping () -> Void) {
        pendingAfterCommit.append(action)
    }

    /// Makes durable what was committed without waiting for fsync, if anything: a small
    /// synced commit, whose fsync takes the log with it. Returns whether one was needed.
    @discardableResult
    func syncIfNeeded() throws -> Bool {
        guard statistics.pendingSync else { return false }
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO meta(key, value) VALUES ('syncedAt', ?)
                    ON CONFLICT(key) DO UPDATE SET value = excluded.value
                    """, arguments: [String(Date().timeIntervalSince1970)])
        }
        return true
    }

    /// Commits the batch in one transaction; false if it failed (every write then has the error).
    private func commit(_ batch: [any QueuedWrite], synced: Bool) -> Bool {
        do {
            try writer.writeWithoutTransaction { db in
                if synced != synchronousFull {
                    try db.execute(sql: synced ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
                    synchronousFull = synced
                }
                try db.inTransaction(.immediate) {
                    for write in batch {
                        let actions = pendingAfterCommit.count
                        write.run(in: db)
                        if write.failure != nil { pendingAfterCommit.removeSubrange(actions...) }
                        // SQLite rolls the whole transaction back by itself on some errors
                        // (a full disk, I/O): what came before in the batch is gone, so every
                        // write of the batch fails, and none after it may run outside a
                        // transaction (GRDB refuses their statements too; this stops them
                        // before they start).
                        guard db.isInsideTransaction else {
                            throw write.failure ?? StoreError.invalidInput("the transaction was rolled back")
                                as any Error
                        }
                    }
                    try beforeCommit(db)
                    return .commit
                }
            }
        } catch {
            pendingAfterCommit.removeAll()
            for write in batch { write.fail(error) }
            return false
        }
        let actions = pendingAfterCommit
        pendingAfterCommit.removeAll()
        for action in actions { action() }
        return true
    }
}

private protocol QueuedWrite: AnyObject {
    var durable: Bool { get }
    var finished: Bool { get set }
    var failure: (any Error)? { get }
    func run(in db: Database)
    func fail(_ error: any Error)
}

/// One caller's write and its result. The result is set by whichever thread commits it,
/// before `finished` is set under the lock, and read by the caller after it sees `finished`.
/// The body is let go of as soon as it ran or failed, before its caller can return: it is a
/// closure of the caller's that must not outlive the call.
private final class Write<T>: QueuedWrite {
    private var body: ((Database) throws -> T)?
    private var result: Result<T, any Error>?
    let durable: Bool
    var finished = false

    init(_ body: @escaping (Database) throws -> T, durable: Bool) {
        self.body = body
        self.durable = durable
    }

    var failure: (any Error)? {
        if case .failure(let error) = result { error } else { nil }
    }

    func run(in db: Database) {
        guard let body else { return }
        self.body = nil
        do {
            var value: T?
            try db.inSavepoint {
                value = try body(db)
                return .commit
            }
            result = .success(value!)
        } catch {
            result = .failure(error)
        }
    }

    func fail(_ error: any Error) {
        body = nil
        // A write whose own body failed keeps that error; the others get the commit's.
        if failure == nil { result = .failure(error) }
    }

    func outcome() throws -> T {
        try result!.get()
    }
}
