import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// Files above this size wait for the person to accept them (Protocol.md §17.3).
    public static let defaultAutoDownloadBytes: UInt64 = 100_000_000

    /// The automatic-download limit, a setting of this machine.
    public func autoDownloadLimit() throws -> UInt64 {
        try metaValue("autoDownloadBytes").flatMap(UInt64.init) ?? Self.defaultAutoDownloadBytes
    }

    public func setAutoDownloadLimit(_ bytes: UInt64) throws {
        try setMetaValue("autoDownloadBytes", String(bytes))
    }

    /// File messages this member can see, oldest first: of one conversation, or of all.
    public func files(in conversation: ConversationID? = nil) throws -> [FileInfo] {
        try read { db in
            let limit = try self.autoDownloadLimit(db: db)
            var sql =
                "SELECT \(Self.fileInfoColumns) FROM \(Self.fileInfoTables) WHERE m.author NOT IN \(Self.blockedAuthorsSQL)"
            var arguments: StatementArguments = []
            if let conversation {
                sql += " AND m.conversationId = ?"
                arguments += [conversation.bytes]
            }
            sql += " ORDER BY msg.timestamp, m.conversationId, m.author, m.seq"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { Self.fileInfo($0, autoLimit: limit) }
        }
    }

    /// Every file message naming one file's content.
    public func files(withID id: FileID) throws -> [FileInfo] {
        try read { db in
            let limit = try self.autoDownloadLimit(db: db)
            return try Row.fetchAll(
                db,
                sql:
                    "SELECT \(Self.fileInfoColumns) FROM \(Self.fileInfoTables) WHERE m.fileId = ? ORDER BY msg.timestamp",
                arguments: [id.bytes]
            ).map { Self.fileInfo($0, autoLimit: limit) }
        }
    }

    /// Files whose id starts with `prefix` (hex, any case).
    public func files(matching prefix: String) throws -> [FileInfo] {
        let prefix = prefix.lowercased()
        guard !prefix.isEmpty, prefix.allSatisfy(\.isHexDigit) else { return [] }
        return try files().filter { $0.fileID.hex.hasPrefix(prefix) }
    }

    /// The file message at one position, for a chat's message.
    func fileInfo(_ conversation: ConversationID, author: NodeID, seq: UInt64, db: Database) throws -> FileInfo? {
        // Asked of every message shown, and most are text: the limit only for a file.
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.fileInfoColumns) FROM \(Self.fileInfoTables)
                        WHERE m.conversationId = ? AND m.author = ? AND m.seq = ?
                        """),
                arguments: [conversation.bytes, author.bytes, seq])
        else { return nil }
        return Self.fileInfo(row, autoLimit: try autoDownloadLimit(db: db))
    }

    /// What saving a file needs: its description (key and hash) and its content's record.
    public func fileForSaving(_ id: FileID) throws -> (description: FileDescription, record: FileRecord)? {
        try read { db in
            guard let record = try self.fileRecord(id, db: db),
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT name, folder, mediaType, fileKey, sha256, width, height FROM file_message
                            WHERE fileId = ? AND fileKey IS NOT NULL LIMIT 1
                            """),
                    arguments: [id.bytes])
            else { return nil }
            let description = FileDescription(
                name: row["name"], folder: row["folder"] ?? "", mediaType: row["mediaType"] ?? "", key: row["fileKey"],
                sha256: row["sha256"], width: row["width"], height: row["height"])
            return (description, record)
        }
    }

    private func autoDownloadLimit(db: Database) throws -> UInt64 {
        try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'autoDownloadBytes'"))
            .flatMap(UInt64.init)
            ?? Self.defaultAutoDownloadBytes
    }

    private static let fileInfoTables = """
        file_message m JOIN file f ON f.id = m.fileId
        JOIN message msg ON msg.conversationId = m.conversationId AND msg.author = m.author AND msg.seq = m.seq
        """

    private static let fileInfoColumns = """
        m.conversationId, m.author, m.seq, m.fileId, m.name, m.folder, m.mediaType, m.width, m.height,
        f.size, f.chunkSize, f.held, f.complete, f.accepted, f.problem, msg.deletedAt
        """

    private static func fileInfo(_ row: Row, autoLimit: UInt64) -> FileInfo {
        let id = FileID(validatedBytes: row["fileId"])
        let size: UInt64 = row["size"]
        let chunkSize: Int = row["chunkSize"]
        let layout = FileLayout(size: size, chunkSize: UInt64(chunkSize))!
        let held = layout.plainBytes(held: ChunkSet(count: layout.chunkCount, bitmap: row["held"] as [UInt8]))
        let name: String? = row["name"]
        let problem: String? = row["problem"]
        let state: FileInfo.State
        if (row["deletedAt"] as Int64?) != nil {
            state = .deleted
        } else if name == nil {
            state = .unreadable
        } else if row["complete"] as Bool {
            state = .complete
        } else if problem != nil {
            state = .failed
        } else if row["accepted"] as Bool || size <= autoLimit {
            state = .fetching
        } else {
            state = .waiting
        }
        return FileInfo(
            conversationID: row.conversationID("conversationId"), author: row.nodeID("author"), seq: row["seq"],
            fileID: id, name: name.map(TextSanitizer.line), folder: row["folder"] ?? "",
            mediaType: row["mediaType"] ?? "",
            size: size, width: row["width"], height: row["height"], heldBytes: state == .complete ? size : held,
            state: state, problem: problem)
    }
}
