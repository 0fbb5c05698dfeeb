/// What the store's one write path (`GroupCommit`) has committed since the store opened.
public struct CommitStatistics: Equatable, Sendable {
    /// Transactions committed.
    public var transactions = 0
    /// The writes they held (several per transaction when callers wrote together).
    public var writes = 0
    /// The most writes one transaction has held.
    public var largestBatch = 0
    /// Transactions that waited for fsync.
    public var synced = 0
    /// Whether a commit since the last synced one did not wait for fsync.
    public var pendingSync = false
}
