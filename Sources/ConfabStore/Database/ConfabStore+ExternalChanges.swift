import GRDB

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
    /// its counter never moves.
    public func externalChangeCounter() throws -> Int64 {
        try writer.writeWithoutTransaction { db in
            try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
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
    }
}
