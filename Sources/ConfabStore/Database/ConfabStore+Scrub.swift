import GRDB

/// Deleted means gone from the disk (Protocol.md §8.0): what a deletion removes is zeroed in
/// the file as it goes (`secure_delete`), the search index is merged past it in the same
/// transaction, and then the write-ahead log, whose earlier frames still hold the words, is
/// copied into the file and truncated: at once when the deletion was made here, within the
/// node's next tick (300 ms) when it arrived from a peer, and when a node starts after a
/// crash.
extension ConfabStore {
    /// Called by a deletion's transaction once it has written (`Checkpointer.deletionWritten`).
    func deletionWritten() {
        checkpointer?.deletionWritten()
    }

    /// Truncates the log now if a deletion is waiting for it; false when a reader held on to
    /// the log, in which case the node's tick tries again.
    @discardableResult
    public func scrubIfDue() -> Bool {
        guard let checkpointer, checkpointer.scrubDue else { return true }
        return checkpointer.scrub()
    }

    /// Truncates the log now, whatever is due: a node starting after a crash or a `kill -9`
    /// may have left a deletion's words in it. False when a reader held on to the log.
    @discardableResult
    public func scrub() -> Bool {
        checkpointer?.scrub() ?? true
    }

    /// Whether a deletion still waits for its scrub.
    public var scrubDue: Bool { checkpointer?.scrubDue ?? false }

    /// Scrubs and closes every connection: SQLite then removes the log and its shared memory,
    /// so a stopped node leaves only the database file. The store is unusable afterwards.
    public func closeDatabase() throws {
        try quickReader?.close()
        try checkpointer?.close()
        guard let pool = writer as? DatabasePool else { return }
        // SQLite removes the log when the last connection closes, unless that one is
        // read-only: the pool's readers go first (it closes its writer first), then the writer.
        pool.releaseMemory()
        try pool.close()
    }
}
