import GRDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a process notices that another one wrote to the same store: a node sees what
/// `confab send` wrote with no node to talk to, or what the chat attached to it wrote of its
/// own state (the conversation it last opened).
extension ConfabStore {
    /// A value that changes whenever another connection to this database file commits: another
    /// process, or another `ConfabStore` opened on the same file in this one. This store's
    /// own commits leave it unchanged, so a poller never wakes itself. Only equality is
    /// meaningful, and only between values from one store. Reading it changes nothing: a
    /// caller that sees it move calls `forgetCaches` before it trusts a clock again.
    ///
    /// It is SQLite's `PRAGMA data_version`, which each connection keeps for itself. It is
    /// read on the writer, the one connection a pool keeps for its whole life (readers come
    /// and go) and the one through which every commit of this store goes; it therefore
    /// waits behind a write in progress here. A store on a `DatabaseQueue` has that one
    /// connection only, with the same meaning; an in-memory one has no other connection, so
    /// its counter never moves. The node reads it every few hundred milliseconds, so the
    /// statement is compiled once per connection (compiling it each time was a fifth of an
    /// idle node's CPU).
    public func externalChangeCounter() throws -> Int64 {
        try writer.writeWithoutTransaction { db in
            try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        }
    }

    /// Whether the write-ahead log's file may have changed since the last call: true unless
    /// its size, modification time and inode all look the same. Every commit of every
    /// connection writes to the log, so while it looks the same, `externalChangeCounter`
    /// would read the same, and reading that opens a read transaction (a lock on the file
    /// and its shared memory) where this is one `stat`. Two commits within the file system's
    /// clock granularity that leave the log's size as it was look the same: a caller reads
    /// the counter itself now and then whatever this says. An in-memory store has no log:
    /// always true.
    public func writeAheadLogChanged() -> Bool {
        guard let writeAheadLog else { return true }
        let now = FileStamp(path: writeAheadLog)
        return writeAheadLogSeen.withLock { seen in
            defer { seen = now }
            return now == nil || seen != now
        }
    }

    /// Forgets the conversations' clocks and membership logs kept in memory, so that the
    /// next read takes them from the file. A cached clock is only ever grown by this store's
    /// own commits (`ClockCache`): once another connection committed (`externalChangeCounter`
    /// moved) it misses what that one wrote, and the sync engine would neither offer nor
    /// announce it. A membership log is checked against the file's count of events before
    /// use; it goes too, as nothing read before such a commit is worth keeping.
    public func forgetCaches() {
        clocks.removeAll()
        membershipLogs.removeAll()
        deviceAuthorsCache.forget()
        externalChangesNoticed.add(1, ordering: .relaxed)
    }

    /// A number that moves whenever this store commits or is told another connection did
    /// (`forgetCaches`), and only then: what was read from the store before it last moved
    /// may have changed, what was read since may not. Timed duties that re-read the store
    /// to catch a change (who is chosen, the block list, files to fetch) skip their reads
    /// while it stands still, which on an idle node is nearly always.
    public var generation: Int {
        commits.statistics.transactions + externalChangesNoticed.load(ordering: .relaxed)
    }
}

/// What `stat` says of a file that changes with every write to it.
struct FileStamp: Equatable, Sendable {
    let inode: UInt64
    let size: Int64
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int

    /// Nil when the file cannot be read (not there yet).
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
}
