import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// The messages from `key` to the newest (at most `maxFrom`), preceded by up to
    /// `context` older ones, oldest first: what a chat shows when opened at a search hit.
    /// `hasOlder` says whether anything precedes the first returned message.
    public func history(
        _ conversation: ConversationID, from key: DisplayOrderKey, context: Int = 20, maxFrom: Int = 5_000
    ) throws -> (messages: [ChatMessage], hasOlder: Bool) {
        let older = try history(conversation, limit: context + 1, before: key)
        let newer: [ChatMessage] = try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.messageColumns) FROM message
                    WHERE conversationId = ? AND (clockSum, timestamp, author, seq) >= (?, ?, ?, ?)
                    AND NOT \(Self.hiddenByRemovalSQL("message"))
                    ORDER BY clockSum, timestamp, author, seq LIMIT ?
                    """,
                arguments: [conversation.bytes, key.clockSum, key.timestamp, key.author.bytes, key.seq, maxFrom])
            let context = try self.deliveryContext(conversation, db: db)
            let names = try self.nameMap(conversation: conversation, db: db)
            return try rows.map { row in
                try self.chatMessage(row: row, conversation: conversation, context: context, names: names, db: db)
            }
        }
        let hasOlder = older.count > context
        return (Array(older.suffix(context)) + newer, hasOlder)
    }
}
