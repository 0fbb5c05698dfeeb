import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// What this node holds of a file's content, or nil when no entry held here names it.
    public func fileRecord(_ id: FileID) throws -> FileRecord? {
        try read { db in try self.fileRecord(id, db: db) }
    }

    func fileRecord(_ id: FileID, db: Database, manifest: Bool = true) throws -> FileRecord? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT size, chunkSize, \(manifest ? "manifest" : "NULL AS manifest"), held, accepted, problem,
                            EXISTS (SELECT 1 FROM file_message m WHERE m.fileId = file.id AND m.fileKey IS NOT NULL)
                                AS readable
                        FROM file WHERE id = ?
                        """),
                arguments: [id.bytes])
        else { return nil }
        return try Self.fileRecord(id, row: row)
    }

    static func fileRecord(_ id: FileID, row: Row) throws -> FileRecord {
        let size: UInt64 = row["size"]
        let chunkSize: Int = row["chunkSize"]
        guard let layout = FileLayout(size: size, chunkSize: UInt64(chunkSize)) else {
            throw StoreError.invalidInput("file \(id.shortHex) has a layout no entry can have")
        }
        return FileRecord(
            id: id, layout: layout, manifest: row["manifest"],
            held: ChunkSet(count: layout.chunkCount, bitmap: row["held"] as [UInt8]), accepted: row["accepted"],
            readable: row["readable"], problem: row["problem"])
    }

    /// Files whose content is not all here, oldest first: what a node may fetch.
    public func incompleteFiles() throws -> [FileRecord] {
        try read { db in
            // Cached: the file exchange asks on every tick and every peer's arrival.
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT id, size, chunkSize, manifest, held, accepted, problem,
                            EXISTS (SELECT 1 FROM file_message m WHERE m.fileId = file.id AND m.fileKey IS NOT NULL)
                                AS readable
                        FROM file WHERE complete = 0 ORDER BY addedAt, id
                        """)
            ).map { row in try Self.fileRecord(FileID(validatedBytes: row["id"]), row: row) }
        }
    }

    /// The conversations held here that have a file entry naming `id`: a peer that should
    /// have one of them may be served the file (Protocol.md §17.5).
    public func fileConversations(_ id: FileID) throws -> [ConversationID] {
        try read { db in
            try [UInt8].fetchAll(
                db.cachedStatement(sql: "SELECT DISTINCT conversationId FROM file_message WHERE fileId = ?"),
                arguments: [id.bytes]
            ).compactMap(ConversationID.init(bytes:))
        }
    }

    /// The manifest, once it checked against the file id.
    public func recordManifest(_ id: FileID, manifest: [UInt8]) throws -> FileRecord? {
        try write { db in
            try db.cachedStatement(sql: "UPDATE file SET manifest = ? WHERE id = ? AND manifest IS NULL")
                .execute(arguments: [manifest, id.bytes])
            try self.markCompleteIfHeld(id, db: db)
            return try self.fileRecord(id, db: db)
        }
    }

    /// Chunks whose bytes were written and synced: from now on they are held. The record
    /// returned leaves the manifest out (the caller has it; it may be 512 KiB).
    public func recordHeld(_ id: FileID, chunks: [Int], now: Date = Date()) throws -> FileRecord? {
        // Chunks can be fetched again, like entries received (Protocol.md §8.0): the record
        // need not wait for fsync, only come after the chunks' own (§17.6).
        try write(durable: false) { db in
            guard var record = try self.fileRecord(id, db: db, manifest: false) else { return nil }
            for index in chunks { record.held.insert(index) }
            try db.cachedStatement(sql: "UPDATE file SET held = ?, heldCount = ? WHERE id = ?")
                .execute(arguments: [record.held.bytes, record.held.heldCount, id.bytes])
            try self.markCompleteIfHeld(id, db: db, now: now)
            return record
        }
    }

    private func markCompleteIfHeld(_ id: FileID, db: Database, now: Date = Date()) throws {
        try db.cachedStatement(
            sql: """
                UPDATE file SET complete = 1, completedAt = ?, problem = NULL
                WHERE id = ? AND complete = 0 AND manifest IS NOT NULL
                    AND heldCount = (size + chunkSize - 1) / chunkSize
                """
        ).execute(arguments: [now.millisecondsSince1970, id.bytes])
    }

    /// Why fetching a file stopped (nil: it may go on).
    public func setFileProblem(_ id: FileID, _ problem: String?) throws {
        try write { db in
            // Unchanged, nothing is written: each new file exchange (every start) tells it again.
            try db.cachedStatement(sql: "UPDATE file SET problem = ?1 WHERE id = ?2 AND problem IS NOT ?1").execute(
                arguments: [problem, id.bytes])
        }
    }

    /// The person wants this file whatever its size.
    public func acceptFile(_ id: FileID) throws {
        try write { db in
            try db.cachedStatement(sql: "UPDATE file SET accepted = 1, problem = NULL WHERE id = ?")
                .execute(arguments: [id.bytes])
        }
    }

    /// Forgets files no file entry held here still names (every one was deleted for
    /// everyone, or its conversation deleted here) and removes their content from the disk;
    /// returns them. Called after the deleting transaction, never inside it: content goes
    /// only once the deletion is committed.
    @discardableResult
    public func removeOrphanedFiles() throws -> [FileID] {
        let orphans = try write { db in
            let ids = try [UInt8].fetchAll(
                db,
                sql: """
                    SELECT id FROM file f WHERE NOT EXISTS (
                        SELECT 1 FROM file_message m WHERE m.fileId = f.id AND NOT EXISTS (
                            SELECT 1 FROM unsent u
                            WHERE u.conversationId = m.conversationId AND u.author = m.author AND u.target = m.seq))
                    """
            ).map(FileID.init(validatedBytes:))
            for id in ids { try db.execute(sql: "DELETE FROM file WHERE id = ?", arguments: [id.bytes]) }
            return ids
        }
        for id in orphans { content.remove(id) }
        return orphans
    }

    /// Removes content on disk that no file record names: left by an import whose file
    /// message was never written (a crash between the two), or a removal interrupted.
    /// Only what is older than `age`, so an import under way in another process is left be.
    public func sweepContent(olderThan age: TimeInterval = 3600, now: Date = Date()) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: content.directory.path)) ?? []
        let held = try read { db in
            Set(try [UInt8].fetchAll(db, sql: "SELECT id FROM file").map { FileID(validatedBytes: $0) })
        }
        for name in names {
            guard let id = FileID(hex: name), !held.contains(id) else { continue }
            let url = content.url(of: id)
            let modified = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
            if let modified, now.timeIntervalSince(modified) > age { content.remove(id) }
        }
    }

    /// Files whose content is stored or being fetched here (its manifest is held, its space
    /// allocated), with the bytes each takes on disk: what a relay's quota counts.
    public func allocatedFiles() throws -> [FileID: Int] {
        try read { db in
            var files: [FileID: Int] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT id, size + 16 * ((size + chunkSize - 1) / chunkSize) AS stored FROM file
                    WHERE manifest IS NOT NULL
                    """)
            {
                files[FileID(validatedBytes: row["id"])] = row["stored"]
            }
            return files
        }
    }
}
