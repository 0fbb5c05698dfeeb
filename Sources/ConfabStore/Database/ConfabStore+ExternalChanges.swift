import GRDB

/// How a process notices that another one wrote to the same store: a node sees what
/// `confab send` wrote with no node to talk to, a chat sees what the node it is attached to
/// stored.
extension ConfabStore {
    /// A value that changes whenever another connection to this database file commits: another
    /// process, or another `ConfabStore` opened on the same file in this one. This store's
    /// own commits leave it unchanged, so a poller never wakes itself. Only equality is
    /// meaningful, and only between values from one store.
    ///
    /// It is SQLite's `PRAGMA data_version`, which each connection keeps for itself. It is
    /// read on the writer, the one connection a pool keeps for its whole life (readers come
    /// and go) and the one through which every commit of this store goes; it therefore
    /// waits behind a write in progress here. A store on a `DatabaseQueue` has that one
    /// connection only, with the same meaning; an in-memory one has no other connection, so
    /// its counter never moves. When it moved, what is cached here is forgotten.
    public func externalChangeCounter() throws -> Int64 {
        let version = try writer.writeWithoutTransaction { db in
            try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
        }
        // The first call forgets too: what was cached before it may predate such a commit.
        let changed = seenDataVersion.withLock { seen in
            defer { seen = version }
            return seen != version
        }
        if changed {
            clocks.removeAll()
            membershipLogs.removeAll()
        }
        return version
    }
}
