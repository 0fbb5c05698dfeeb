import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// Messages of a conversation in display order: the `limit` latest before `before`
    /// (or the latest of all), oldest first, for paging backwards through history.
    public func history(
        _ conversation: ConversationID, limit: Int = 50, before: DisplayOrderKey? = nil
    ) throws -> [ChatMessage] {
        try writer.read { db in
            try self.requireConversation(conversation, db: db)
            var sql = """
                SELECT author, seq, text, timestamp, clockSum FROM message
                WHERE conversationId = ? AND author NOT IN \(Self.blockedAuthorsSQL)
                """
            var arguments: StatementArguments = [conversation.bytes]
            if let before {
                sql += " AND (clockSum, timestamp, author, seq) < (?, ?, ?, ?)"
                arguments += [before.clockSum, before.timestamp, before.author.bytes, before.seq]
            }
            sql += " ORDER BY clockSum DESC, timestamp DESC, author DESC, seq DESC LIMIT ?"
            arguments += [limit]
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            let context = try DeliveryContext(conversation: conversation, me: me, db: db)
            let names = try self.nameMap(conversation: conversation, db: db)
            return rows.reversed().map { row in
                self.chatMessage(row: row, conversation: conversation, context: context, names: names)
            }
        }
    }

    func nameMap(conversation: ConversationID, db: Database) throws -> [NodeID: String] {
        var names = Dictionary(
            uniqueKeysWithValues: try participantNames(conversation: conversation, db: db).map { ($0.id, $0.name) })
        names[me] = "You"
        return names
    }

    func chatMessage(
        row: Row, conversation: ConversationID, context: DeliveryContext, names: [NodeID: String]
    ) -> ChatMessage {
        let author = row.nodeID("author")
        let seq: UInt64 = row["seq"]
        let timestamp: Int64 = row["timestamp"]
        let isMine = author == me
        return ChatMessage(
            conversationID: conversation, author: author, authorName: names[author] ?? author.shortHex, seq: seq,
            isMine: isMine, text: row["text"], sentAt: Date(milliseconds: timestamp),
            orderKey: DisplayOrderKey(clockSum: row["clockSum"], timestamp: timestamp, author: author, seq: seq),
            status: isMine ? context.status(ofMySeq: seq) : nil)
    }
}

extension ConfabStore {
    /// The status of one of my messages; nil when there is no such message of mine.
    public func deliveryStatus(_ conversation: ConversationID, seq: UInt64) throws -> DeliveryStatus? {
        try writer.read { db in
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM entry WHERE conversationId = ? AND author = ? AND seq = ?",
                    arguments: [conversation.bytes, me.bytes, seq]) != nil
                    || Bool.fetchOne(
                        db, sql: "SELECT 1 FROM head WHERE conversationId = ? AND author = ? AND seq >= ?",
                        arguments: [conversation.bytes, me.bytes, seq]) != nil
            else { return nil }
            return try DeliveryContext(conversation: conversation, me: me, db: db).status(ofMySeq: seq)
        }
    }
}

extension ConfabStore {
    /// One message as a chat shows it; nil when it is not held, not a message, or by a
    /// blocked author.
    public func message(_ conversation: ConversationID, author: NodeID, seq: UInt64) throws -> ChatMessage? {
        try writer.read { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT author, seq, text, timestamp, clockSum FROM message
                            WHERE conversationId = ? AND author = ? AND seq = ?
                            AND author NOT IN \(Self.blockedAuthorsSQL)
                            """),
                    arguments: [conversation.bytes, author.bytes, seq])
            else { return nil }
            return self.chatMessage(
                row: row, conversation: conversation,
                context: try DeliveryContext(conversation: conversation, me: me, db: db),
                names: try self.nameMap(conversation: conversation, db: db))
        }
    }

    /// The status of each of my latest `limit` messages in a conversation, by seq.
    public func myStatuses(_ conversation: ConversationID, limit: Int = 100) throws -> [UInt64: DeliveryStatus] {
        try writer.read { db in
            let seqs = try UInt64.fetchAll(
                db.cachedStatement(
                    sql: "SELECT seq FROM message WHERE conversationId = ? AND author = ? ORDER BY seq DESC LIMIT ?"),
                arguments: [conversation.bytes, me.bytes, limit])
            let context = try DeliveryContext(conversation: conversation, me: me, db: db)
            return Dictionary(uniqueKeysWithValues: seqs.map { ($0, context.status(ofMySeq: $0)) })
        }
    }
}
