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
            try self.deleteConversationHere(conversation, db: db, now: now)
            try self.recordSetting(
                PersonalSetting(target: conversation.bytes, field: .deleted, value: 1)!, db: db, now: now)
        }
        try removeOrphanedFiles()
        scrubIfDue()
    }

    /// What `deleteConversation` deletes, in the caller's write.
    func deleteConversationHere(_ conversation: ConversationID, db: Database, now: Date) throws {
        try db.execute(sql: "DELETE FROM message WHERE conversationId = ?", arguments: [conversation.bytes])
        self.deletionWritten()
        for table in ["message_version", "mention", "reaction", "device_notice"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE conversationId = ?", arguments: [conversation.bytes])
        }
        try db.execute(
            sql: """
                DELETE FROM entry WHERE conversationId = ? AND NOT EXISTS (
                    SELECT 1 FROM outbox o WHERE o.conversationId = entry.conversationId
                    AND o.author = entry.author AND o.seq = entry.seq)
                """,
            arguments: [conversation.bytes])
        // Files go with their messages, except mine still waiting to reach anyone: peers
        // will ask for their content.
        try db.execute(
            sql: """
                DELETE FROM file_message WHERE conversationId = ? AND NOT EXISTS (
                    SELECT 1 FROM outbox o WHERE o.conversationId = file_message.conversationId
                    AND o.author = file_message.author AND o.seq = file_message.seq)
                """,
            arguments: [conversation.bytes])
        try db.execute(
            sql: "INSERT OR IGNORE INTO local_state(conversationId) VALUES (?)", arguments: [conversation.bytes])
        try db.execute(
            sql: """
                UPDATE local_state SET deletedAt = ?, pinned = 0, archived = 0, markedUnread = 0
                WHERE conversationId = ?
                """,
            arguments: [now.millisecondsSince1970, conversation.bytes])
        // The index records each removal as a marker in a newer segment, and the older
        // segments keep the words until they merge: merged now (Protocol.md §8.0).
        try db.execute(sql: "INSERT INTO message_fts(message_fts) VALUES ('optimize')")
    }
}
