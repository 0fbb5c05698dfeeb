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
                SELECT \(Self.messageColumns) FROM message
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
            let context = try self.deliveryContext(conversation, db: db)
            let names = try self.nameMap(conversation: conversation, db: db)
            return try rows.reversed().map { row in
                try self.chatMessage(row: row, conversation: conversation, context: context, names: names, db: db)
            }
        }
    }

    func nameMap(conversation: ConversationID, db: Database) throws -> [NodeID: String] {
        var names = Dictionary(
            uniqueKeysWithValues: try participantNames(conversation: conversation, db: db).map { ($0.id, $0.name) })
        names[me] = "You"
        return names
    }

    /// The columns `chatMessage(row:…)` reads.
    static let messageColumns = "author, seq, text, timestamp, clockSum, editedAt, deletedAt"

    func chatMessage(
        row: Row, conversation: ConversationID, context: DeliveryContext, names: [NodeID: String], db: Database
    ) throws -> ChatMessage {
        let author = row.nodeID("author")
        let seq: UInt64 = row["seq"]
        let timestamp: Int64 = row["timestamp"]
        let isMine = author == me
        var message = ChatMessage(
            conversationID: conversation, author: author, authorName: names[author] ?? author.shortHex, seq: seq,
            isMine: isMine, text: row["text"], sentAt: Date(milliseconds: timestamp),
            orderKey: DisplayOrderKey(clockSum: row["clockSum"], timestamp: timestamp, author: author, seq: seq),
            status: isMine ? context.status(ofMySeq: seq) : nil)
        message.isDeleted = (row["deletedAt"] as Int64?) != nil
        message.file = try fileInfo(conversation, author: author, seq: seq, db: db)
        if let editedAt = row["editedAt"] as Int64? {
            message.editedAt = Date(milliseconds: editedAt)
            if !message.isDeleted {
                message.edits = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT text, timestamp FROM message_version
                            WHERE conversationId = ? AND author = ? AND target = ? ORDER BY seq
                            """),
                    arguments: [conversation.bytes, author.bytes, seq]
                ).map { ChatMessage.Version(text: $0["text"], writtenAt: Date(milliseconds: $0["timestamp"])) }
            }
        }
        return message
    }
}
