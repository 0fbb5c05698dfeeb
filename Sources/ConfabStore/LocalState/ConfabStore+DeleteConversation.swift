import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// Deletes a conversation's messages from this machine. The heads stay behind as a
    /// tombstone: sync will not fetch the deleted entries again, and new messages after
    /// them bring the conversation back. My own entries that no node has yet are kept (as
    /// ciphertext only) so that my log still reaches the others without a gap.
    /// The person's other devices delete it too (Protocol.md §20.15).
    public func deleteConversation(_ conversation: ConversationID, now: Date = Date()) throws {
        try write { db in
            try self.requireConversation(conversation, db: db)
            // What is held now is what the other devices delete when they take this, however
            // late: the heads stay behind, so they are read after the deletion as well as before.
            let held = VectorClock(try Self.heads(of: conversation, db: db))
            try self.deleteConversationHere(conversation, db: db, now: now)
            try self.recordSetting(
                PersonalSetting(
                    target: conversation.bytes, field: .deleted, value: 1,
                    upto: held.isEmpty || held.width > PersonalSetting.maxUptoAuthors ? nil : held)!,
                db: db, now: now)
        }
        try removeOrphanedFiles()
        scrubIfDue()
    }

    /// What `deleteConversation` deletes, in the caller's write: everything held, or, with
    /// `upto` (another device's deletion taken here, Protocol.md §20.15), each author's
    /// entries up to the seq `upto` names and what hangs on them, so what arrived after the
    /// deletion was made stays. A conversation left with a message is still listed.
    func deleteConversationHere(
        _ conversation: ConversationID, upto: VectorClock? = nil, db: Database, now: Date
    ) throws {
        let id = conversation.bytes
        let bounds: [(author: [UInt8]?, seq: UInt64)] =
            upto.map { $0.sortedEntries.map { (author: $0.author.bytes, seq: $0.seq) } } ?? [(nil, .max)]
        // One pass per author named (all authors at once when nothing is named): `?2 IS NULL`
        // stands for any author, and a seq of every row is at most 2^48.
        let seqBound = { (seq: UInt64) in Int64(min(seq, UInt64(Int64.max))) }
        for bound in bounds {
            let arguments: StatementArguments = [id, bound.author, seqBound(bound.seq)]
            let byAuthor = "conversationId = ?1 AND (?2 IS NULL OR author = ?2)"
            try db.execute(sql: "DELETE FROM message WHERE \(byAuthor) AND seq <= ?3", arguments: arguments)
            try db.execute(sql: "DELETE FROM message_version WHERE \(byAuthor) AND target <= ?3", arguments: arguments)
            try db.execute(sql: "DELETE FROM mention WHERE \(byAuthor) AND seq <= ?3", arguments: arguments)
            try db.execute(
                sql: """
                    DELETE FROM reaction WHERE conversationId = ?1 AND (?2 IS NULL OR targetAuthor = ?2)
                    AND targetSeq <= ?3
                    """,
                arguments: arguments)
            // My own entries that no node has yet stay (as ciphertext only) so that my log
            // still reaches the others without a gap; their files too, which peers will ask for.
            for table in ["entry", "file_message"] {
                try db.execute(
                    sql: """
                        DELETE FROM \(table) WHERE \(byAuthor) AND seq <= ?3 AND NOT EXISTS (
                            SELECT 1 FROM outbox o WHERE o.conversationId = \(table).conversationId
                            AND o.author = \(table).author AND o.seq = \(table).seq)
                        """,
                    arguments: arguments)
            }
        }
        self.deletionWritten()
        // A device line is local and placed by the clock sum of where it was written.
        try db.execute(
            sql: "DELETE FROM device_notice WHERE conversationId = ? AND clockSum <= ?",
            arguments: [id, seqBound(upto?.sum ?? .max)])
        let kept =
            try Bool.fetchOne(db, sql: "SELECT 1 FROM message WHERE conversationId = ? LIMIT 1", arguments: [id])
            ?? false
        try db.execute(sql: "INSERT OR IGNORE INTO local_state(conversationId) VALUES (?)", arguments: [id])
        try db.execute(
            sql: """
                UPDATE local_state SET deletedAt = ?, pinned = 0, archived = 0, markedUnread = 0
                WHERE conversationId = ?
                """,
            arguments: [kept ? nil : now.millisecondsSince1970, id])
        // The index records each removal as a marker in a newer segment, and the older
        // segments keep the words until they merge: merged now (Protocol.md §8.0).
        try db.execute(sql: "INSERT INTO message_fts(message_fts) VALUES ('optimize')")
    }
}
