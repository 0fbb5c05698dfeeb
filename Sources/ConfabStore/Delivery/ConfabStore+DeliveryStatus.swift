import ConfabModel
import GRDB

extension ConfabStore {
    /// The status of one of my messages; nil when there is no such message of mine.
    public func deliveryStatus(_ conversation: ConversationID, seq: UInt64) throws -> DeliveryStatus? {
        try read { db in
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM entry WHERE conversationId = ? AND author = ? AND seq = ?",
                    arguments: [conversation.bytes, me.bytes, seq]) != nil
                    || Bool.fetchOne(
                        db, sql: "SELECT 1 FROM head WHERE conversationId = ? AND author = ? AND seq >= ?",
                        arguments: [conversation.bytes, me.bytes, seq]) != nil
            else { return nil }
            return try self.deliveryContext(conversation, db: db).status(ofMySeq: seq)
        }
    }

    /// The status of each of my latest `limit` messages in a conversation, by seq.
    public func myStatuses(_ conversation: ConversationID, limit: Int = 100) throws -> [UInt64: DeliveryStatus] {
        try read { db in
            let seqs = try UInt64.fetchAll(
                db.cachedStatement(
                    sql: "SELECT seq FROM message WHERE conversationId = ? AND author = ? ORDER BY seq DESC LIMIT ?"),
                arguments: [conversation.bytes, me.bytes, limit])
            let context = try self.deliveryContext(conversation, db: db)
            return Dictionary(uniqueKeysWithValues: seqs.map { ($0, context.status(ofMySeq: $0)) })
        }
    }
}
