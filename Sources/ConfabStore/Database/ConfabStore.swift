import ConfabCrypto
import ConfabModel
import Foundation
import GRDB
import Synchronization

/// The node's SQLite database: every conversation, entry and bit of local state. It is the
/// one owner of the database connection and its migrations; everything else goes through
/// its methods, which are each one transaction.
public final class ConfabStore: Sendable {
    let writer: any DatabaseWriter
    /// The writer when it is an in-memory queue, which `read` reads through directly.
    private let memoryQueue: DatabaseQueue?
    /// A file store's read-only connection of its own for `readUnisolated`.
    let quickReader: DatabaseQueue?
    /// A file store's connection for checkpoints off the write path.
    let checkpointer: Checkpointer?
    /// Every write goes through it, so that writes waiting together share a commit.
    let commits: GroupCommit
    /// The node's own identity: the author of what this store writes, and the key that
    /// opens conversation keys sealed to us.
    public let identity: SigningKeyPair
    public var me: NodeID { NodeID(identity.publicKey) }
    /// Conversations' clocks as last committed here (`clock(of:)`).
    let clocks = ClockCache()
    /// Conversations' membership logs as last committed here (`membershipLog`).
    let membershipLogs = MembershipLogCache()
    /// Who each author key counts as, from the device lists held (`deviceAuthors`).
    let deviceAuthorsCache = DeviceAuthorsCache()
    /// The person a linked device belongs to (`myPerson`); nil when its key is its person's.
    let linkedPersonKey = Mutex<NodeID?>(nil)
    /// How often another connection's commit was noticed (`forgetCaches`), for `generation`.
    let externalChangesNoticed = Atomic<Int>(0)
    /// A file store's write-ahead log, and how it looked when last asked
    /// (`writeAheadLogChanged`).
    let writeAheadLog: String?
    let writeAheadLogSeen = Mutex<FileStamp?>(nil)
    /// Files' encrypted content, beside the database (Protocol.md §17.6).
    public let content: ContentStore
    /// The entry signatures this node checked.
    public let signatures = SignatureChecks()
    /// Whether `content` is a temporary folder made for this store (no folder given), which
    /// goes with it.
    private let ownsContentDirectory: Bool

    /// Opens (creating if needed) the store at `path` in WAL mode. Each commit sets how it
    /// waits for the disk (`GroupCommit`): a write of mine survives a crash or a power loss
    /// once it returned; entries received survive a crash, and a power loss a second later.
    public convenience init(path: String, identity: SigningKeyPair) throws {
        try self.init(path: path, identity: identity, checkpoints: Checkpointer.Thresholds())
    }

    /// `checkpoints`: when the log is copied into the file (`Checkpointer`); tests move them.
    convenience init(path: String, identity: SigningKeyPair, checkpoints: Checkpointer.Thresholds) throws {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            // What is deleted (a message unsent by its author, a conversation deleted here)
            // is overwritten with zeros in the file, not merely unlinked (Protocol.md §4.5).
            try db.execute(sql: "PRAGMA secure_delete = ON")
            // Sorts and temporary indexes stay in memory: a temporary file would hold words
            // outside the data directory, where no scrub reaches (Protocol.md §8.0).
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        let pool = try DatabasePool(path: path, configuration: config)
        let files = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("files")
        try self.init(
            writer: pool, identity: identity, content: ContentStore(directory: files), readerPath: path,
            checkpoints: checkpoints)
    }

    /// An in-memory store, for tests; file content goes to `filesDirectory` (a fresh
    /// temporary folder, made when first written, unless given).
    public static func inMemory(identity: SigningKeyPair, filesDirectory: URL? = nil) throws -> ConfabStore {
        try ConfabStore(writer: DatabaseQueue(), identity: identity, content: filesDirectory.map(ContentStore.init))
    }

    /// `readerPath`: the file of a file store, for its `quickReader`.
    init(
        writer: any DatabaseWriter, identity: SigningKeyPair, content: ContentStore? = nil,
        readerPath: String? = nil, checkpoints: Checkpointer.Thresholds = Checkpointer.Thresholds()
    ) throws {
        self.writer = writer
        self.memoryQueue = writer as? DatabaseQueue
        writeAheadLog = readerPath.map { $0 + "-wal" }
        self.commits = GroupCommit(writer: writer, beforeCommit: Self.indexNewMessages)
        self.identity = identity
        self.content =
            content
            ?? ContentStore(
                directory: FileManager.default.temporaryDirectory.appendingPathComponent(
                    "confab-files-\(UUID().uuidString)"))
        ownsContentDirectory = content == nil
        try Self.migrator.migrate(writer)
        if let readerPath {
            var config = Configuration()
            config.readonly = true
            config.busyMode = .timeout(10)
            quickReader = try DatabaseQueue(path: readerPath, configuration: config)
            let checkpointer = try Checkpointer(path: readerPath, thresholds: checkpoints)
            writer.writeWithoutTransaction { db in checkpointer.watch(db) }
            self.checkpointer = checkpointer
        } else {
            quickReader = nil
            checkpointer = nil
        }
        try write { db in try self.checkOwner(db) }
        let linked = try linkedPerson()
        linkedPersonKey.withLock { $0 = linked }
    }

    deinit {
        if ownsContentDirectory { try? FileManager.default.removeItem(at: content.directory) }
    }

    /// Runs `body` in a transaction, committed before this returns, and on disk (fsync)
    /// unless `durable` is false; writes waiting together share one (`GroupCommit`). `body`
    /// must not write through the store itself.
    func write<T>(durable: Bool = true, _ body: (Database) throws -> T) throws -> T {
        try commits.write(durable: durable, body)
    }

    /// Runs `body` on the database as last committed. A file store reads on one of its
    /// pool's reader connections, opened read-only. An in-memory store (tests, fuzzers, the
    /// simulation) has one connection, whose queue already keeps a read from meeting a
    /// write; GRDB's `read` would also set `PRAGMA query_only` on it and back, and SQLite
    /// expires every prepared statement when a flag pragma changes, so each cached statement
    /// was compiled again after every read (a third of a file-session fuzzer's time).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        if let memoryQueue { return try memoryQueue.inDatabase(body) }
        return try writer.read(body)
    }

    /// A read of one statement, or of statements that need not agree with each other: SQLite
    /// runs each statement on one committed snapshot by itself. For the one-row reads the
    /// sync path makes with nearly every message, on a read-only connection of their own:
    /// a read from the pool costs more than the row (taking a reader from the pool, a hop to
    /// its queue, BEGIN and COMMIT, and GRDB's check of the schema version, which reads the
    /// file's header under a lock): 40–80 µs, a third of what handing a sent message to the
    /// peers took.
    func readUnisolated<T>(_ body: (Database) throws -> T) throws -> T {
        if let memoryQueue { return try memoryQueue.inDatabase(body) }
        if let quickReader { return try quickReader.inDatabase(body) }
        return try writer.unsafeRead(body)
    }

    /// Statements that must agree with each other (one transaction, one snapshot), on the
    /// read-only connection of `readUnisolated`: for what the node reads back per message it
    /// stores (the event that shows it), where a pool read's fixed cost is most of the read.
    func readSnapshot<T>(_ body: (Database) throws -> T) throws -> T {
        guard memoryQueue == nil, let quickReader else { return try read(body) }
        return try quickReader.inDatabase { db in
            var result: T?
            try db.inTransaction(.deferred) {
                result = try body(db)
                return .commit
            }
            return result!
        }
    }

    /// What the store has committed since it opened (`CommitStatistics`).
    public var commitStatistics: CommitStatistics { commits.statistics }

    /// Puts on disk what was committed without waiting for fsync (entries received from
    /// peers), if anything was; the node calls it every second. Returns whether it had to.
    @discardableResult
    public func syncReceived() throws -> Bool {
        try commits.syncIfNeeded()
    }

    /// Copies the write-ahead log into the database file on a thread of its own if nothing
    /// committed since the previous call (the node calls it a few times a second); a log
    /// that grows large is copied meanwhile without it (`Checkpointer`). Nothing to do for
    /// an in-memory store.
    public func checkpointIfIdle() {
        checkpointer?.scrubInBackground()
        checkpointer?.idle(transactions: commits.statistics.transactions)
    }

    /// Checkpoints the store ran in the background since it opened.
    var backgroundCheckpoints: Int { checkpointer?.backgroundCheckpoints ?? 0 }

    /// The same, on this thread: the pages in the log and how many are now in the file.
    @discardableResult
    public func checkpoint() throws -> (log: Int, copied: Int) {
        try checkpointer?.checkpoint() ?? (0, 0)
    }

    /// A store belongs to one identity: opening it with another key would mix two people's
    /// logs, so that is refused.
    private func checkOwner(_ db: Database) throws {
        let owner = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'owner'")
        if let owner {
            guard owner == me.hex else { throw StoreError.wrongOwner(storeOwner: owner, identity: me.hex) }
        } else {
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES ('owner', ?)", arguments: [me.hex])
        }
    }

    /// Runs SQLite's own consistency check; returns its messages ("ok" when sound).
    public func integrityCheck() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }
}
