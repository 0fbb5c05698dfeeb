import ConfabModel
import GRDB

extension ConfabStore {
    /// One message as a chat shows it; nil when it is not held, not a message, or by a
    /// blocked author.
    public func message(_ conversation: ConversationID, author: NodeID, seq: UInt64) throws -> ChatMessage? {
        try readSnapshot { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT \(Self.messageColumns) FROM message
                            WHERE conversationId = ? AND author = ? AND seq = ?
                            AND author NOT IN \(Self.blockedAuthorsSQL) AND NOT \(Self.hiddenByRemovalSQL("message"))
                            """),
                    arguments: [conversation.bytes, author.bytes, seq])
            else { return nil }
            return try self.chatMessage(
                row: row, conversation: conversation,
                // Only my messages have a delivery status: another's costs three reads less.
                context: author == self.me
                    ? try self.deliveryContext(conversation, db: db) : .noStatus(me: self.me),
                names: try self.nameMap(conversation: conversation, db: db), db: db)
        }
    }
}
