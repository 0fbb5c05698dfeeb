import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// A file entry, on the way in (Protocol.md §17.2): its content gets a `file` row (once
    /// per file id), the entry a `file_message` row — with the description for a member that
    /// opens it, without for a relay — and a member's chat gets a message whose text is the
    /// file's name, so that lists, unread counts, delivery status and search treat a file as
    /// the message it is.
    func insertFileMessage(
        _ entry: Entry, file: FileBody, clockSum: UInt64, epoch: EntryRef?, db: Database, context: BatchContext
    ) throws {
        try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO file(id, size, chunkSize, held, addedAt) VALUES (?, ?, ?, ?, ?)"
        ).execute(arguments: [
            file.fileID.bytes, file.layout.size, file.layout.chunkSize, ChunkSet(count: file.layout.chunkCount).bytes,
            Date().millisecondsSince1970,
        ])
        // Sealed like a message, under the key of the epoch in force at its position.
        let recipient = try epoch.map { try isRecipient(of: $0, in: entry.conversationID, db: db, context: context) }
        let key = try epoch.flatMap { try context.epochKey(entry.conversationID, epoch: $0, db: db) }
        let authored = context.authoredFile(entry.hash)
        let description = key.flatMap { key in
            authored
                ?? (try? FileCipher.openDescription(
                    file.sealed, key: SecureBytes(key), conversationID: entry.conversationID, author: entry.author,
                    seq: entry.seq))
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO file_message(
                    conversationId, author, seq, fileId, name, folder, mediaType, fileKey, sha256, width, height)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(conversationId, author, seq) DO UPDATE SET
                    name = excluded.name, folder = excluded.folder, mediaType = excluded.mediaType,
                    fileKey = excluded.fileKey, sha256 = excluded.sha256, width = excluded.width,
                    height = excluded.height
                WHERE excluded.fileKey IS NOT NULL
                """
        ).execute(arguments: [
            entry.conversationID.bytes, entry.author.bytes, entry.seq, file.fileID.bytes, description?.name,
            description?.folder, description?.mediaType, description?.key, description?.sha256,
            description?.width ?? 0, description?.height ?? 0,
        ])
        // Taken again when its epoch's key arrives later (`readAgain`): the description
        // then fills in the row kept without it.
        guard recipient == true else { return }
        try db.cachedStatement(
            sql: """
                INSERT INTO message(conversationId, author, seq, timestamp, clockSum, text)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            entry.conversationID.bytes, entry.author.bytes, entry.seq, entry.timestamp, clockSum,
            description.map { TextSanitizer.line($0.name) },
        ])
        if try !context.isBlocked(entry.author, db: db) {
            context.noteMessage(entry.conversationID, at: entry.timestamp)
        }
    }

    /// A file deleted for everyone by its author: its description goes (name, key, hash),
    /// so it is neither shown nor fetched; its content goes once no other file entry held
    /// here can open it (`unreferencedContent`).
    func forgetFileMessage(_ position: StatementArguments, db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE file_message SET name = NULL, folder = NULL, mediaType = NULL, fileKey = NULL, sha256 = NULL
                WHERE conversationId = ? AND author = ? AND seq = ?
                """
        ).execute(arguments: position)
    }
}
