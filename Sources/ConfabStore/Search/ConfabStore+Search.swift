import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// Full-text search (FTS5, prefix matching, diacritics ignored) over message text,
    /// conversation titles and participant names. Conversation matches come first, then
    /// messages, newest first.
    public func search(_ text: String, limit: Int = 50) throws -> [SearchHit] {
        guard let query = Self.ftsQuery(text) else { return [] }
        let conversationIDs: [ConversationID] = try read { db in
            try String.fetchAll(
                db, sql: "SELECT conversationId FROM conversation_fts WHERE conversation_fts MATCH ? ORDER BY rank",
                arguments: [query]
            ).compactMap(ConversationID.init(hex:))
        }
        var hits: [SearchHit] = []
        for id in conversationIDs {
            if let summary = try conversation(id) {
                hits.append(SearchHit(conversation: summary, message: nil, snippet: summary.title))
            }
        }
        let messageRows: [Row] = try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT m.conversationId, m.author, m.seq, m.text, m.timestamp, m.clockSum, m.editedAt, m.deletedAt,
                        m.replyAuthor, m.replySeq,
                        snippet(message_fts, 0, '«', '»', '…', 12) AS snippet
                    FROM message_fts f JOIN message m ON m.id = f.rowid
                    JOIN participant mine ON mine.conversationId = m.conversationId AND mine.nodeId = ?
                    WHERE message_fts MATCH ? AND m.author NOT IN \(Self.blockedAuthorsSQL)
                    AND NOT \(Self.hiddenByRemovalSQL("m"))
                    ORDER BY m.timestamp DESC LIMIT ?
                    """,
                arguments: [me.bytes, query, limit])
        }
        var summaries: [ConversationID: ConversationSummary] = [:]
        for row in messageRows {
            let id = row.conversationID("conversationId")
            if summaries[id] == nil { summaries[id] = try conversation(id) }
            guard let summary = summaries[id] else { continue }
            let message = try read { db in
                try self.chatMessage(
                    row: row, conversation: id, context: try self.deliveryContext(id, db: db),
                    names: try self.nameMap(conversation: id, db: db), db: db)
            }
            hits.append(SearchHit(conversation: summary, message: message, snippet: row["snippet"]))
        }
        return hits
    }

    /// Turns what a person typed into an FTS5 query: every word must match as a prefix.
    /// Quoting each word means no input can be an FTS5 syntax error.
    static func ftsQuery(_ text: String) -> String? {
        let words = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"*" }.joined(separator: " ")
    }
}
