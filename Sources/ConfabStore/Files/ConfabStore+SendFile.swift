import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Encrypts a file into the content store. When this node already holds the same
    /// content with its key (sent or received before), that key and content are used again
    /// and the new copy is dropped, so the same file is stored, and fetched, once
    /// (Protocol.md §17.1).
    /// `chunkSize` replaces this implementation's choice (tests and benchmarks).
    public func importFile(
        at url: URL, maxSize: UInt64 = FileLayout.maxSize, chunkSize: Int? = nil
    ) throws
        -> ImportedFile
    {
        let imported = try content.importPlaintext(from: url, maxSize: maxSize, chunkSize: chunkSize)
        guard
            let existing = try read({ db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT f.id, f.chunkSize, f.manifest, m.fileKey FROM file_message m JOIN file f ON f.id = m.fileId
                        WHERE m.sha256 = ? AND f.size = ? AND f.complete = 1 AND m.fileKey IS NOT NULL AND f.id != ?
                        LIMIT 1
                        """,
                    arguments: [imported.sha256, imported.layout.size, imported.fileID.bytes])
            }),
            let layout = FileLayout(size: imported.layout.size, chunkSize: existing["chunkSize"])
        else { return imported }
        content.remove(imported.fileID)
        return ImportedFile(
            fileID: FileID(validatedBytes: existing["id"]), layout: layout, manifest: existing["manifest"],
            key: existing["fileKey"], sha256: imported.sha256)
    }

    /// Writes a file message of mine for content already imported: when this returns, the
    /// entry is stored and queued, and every chunk is held here, so peers can fetch it.
    public func sendFile(
        _ file: ImportedFile, name: String, folder: String = "", mediaType: String = "", width: Int = 0,
        height: Int = 0, to conversation: ConversationID, now: Date = Date()
    ) throws -> Entry {
        let description = FileDescription(
            name: name, folder: folder, mediaType: mediaType, key: file.key, sha256: file.sha256, width: width,
            height: height)
        if let problem = description.problem { throw StoreError.invalidInput(problem) }
        return try write { db in
            // Before the seq is taken: it may write a rekey first (Protocol.md §4.8.4).
            let key = try self.sealingKey(in: conversation, db: db, now: now)
            try db.execute(
                sql: """
                    INSERT INTO file(id, size, chunkSize, manifest, held, heldCount, complete, accepted, addedAt,
                        completedAt)
                    VALUES (?, ?, ?, ?, ?, ?, 1, 1, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET manifest = excluded.manifest, held = excluded.held,
                        heldCount = excluded.heldCount, complete = 1, problem = NULL
                    """,
                arguments: [
                    file.fileID.bytes, file.layout.size, file.layout.chunkSize, file.manifest,
                    ChunkSet.full(count: file.layout.chunkCount).bytes, file.layout.chunkCount,
                    now.millisecondsSince1970, now.millisecondsSince1970,
                ])
            return try self.authorEntry(
                in: conversation, db: db, now: now, context: BatchContext(store: self, now: now)
            ) {
                seq in
                let sealed = try FileCipher.sealDescription(
                    description, key: key, conversationID: conversation, author: self.me, seq: seq)
                return (.file(FileBody(sealed: sealed, layout: file.layout, fileID: file.fileID)), .file(description))
            }
        }
    }
}
