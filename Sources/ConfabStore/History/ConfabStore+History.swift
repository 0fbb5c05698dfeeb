import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// Messages of a conversation in display order: the `limit` latest before `before`
    /// (or the latest of all), oldest first, for paging backwards through history.
    public func history(
        _ conversation: ConversationID, limit: Int = 50, before: DisplayOrderKey? = nil
    ) throws -> [ChatMessage] {
        try read { db in
            try self.requireConversation(conversation, db: db)
            var sql = """
                SELECT \(Self.messageColumns) FROM message
                WHERE conversationId = ? AND author NOT IN \(Self.blockedAuthorsSQL)
                AND NOT \(Self.hiddenByRemovalSQL("message"))
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
            let messages = try rows.reversed().map { row in
                try self.chatMessage(row: row, conversation: conversation, context: context, names: names, db: db)
            }
            // The system lines between the first message of the page (or the beginning,
            // when this page reaches it) and `before`.
            let after = rows.count == limit ? messages.first?.orderKey : nil
            let lines =
                try self.membershipLines(conversation, after: after, before: before, names: names, db: db)
                + self.deviceLines(conversation, after: after, before: before, names: names, db: db)
            return (messages + lines).sorted { $0.orderKey < $1.orderKey }
        }
    }

    func nameMap(conversation: ConversationID, db: Database) throws -> [NodeID: String] {
        var names = nameMap(try participantNames(conversation: conversation, db: db))
        // Those no longer members still wrote messages, and changes still name them.
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql:
                    "SELECT f.nodeId, peer.name FROM former_member f JOIN peer ON peer.id = f.nodeId WHERE f.conversationId = ?"
            ),
            arguments: [conversation.bytes])
        {
            names[row.nodeID("nodeId")] = row["name"]
        }
        // A room lists nobody: its writers are named as this node knows them (Protocol.md §18).
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT h.author, peer.name FROM head h JOIN peer ON peer.id = h.author
                    JOIN conversation c ON c.id = h.conversationId AND c.room IS NOT NULL
                    WHERE h.conversationId = ?
                    """),
            arguments: [conversation.bytes])
        {
            names[row.nodeID("author")] = row["name"]
        }
        names[me] = "You"
        names[myPerson] = "You"
        return names
    }

    /// Participants' names here, mine "You".
    func nameMap(_ participants: [ConversationSummary.Participant]) -> [NodeID: String] {
        var names = Dictionary(uniqueKeysWithValues: participants.map { ($0.id, $0.name) })
        names[me] = "You"
        names[myPerson] = "You"
        return names
    }

    /// The columns `chatMessage(row:…)` reads.
    static let messageColumns =
        "author, person, seq, text, timestamp, clockSum, editedAt, deletedAt, replyAuthor, replySeq"

    func chatMessage(
        row: Row, conversation: ConversationID, context: DeliveryContext, names: [NodeID: String], db: Database
    ) throws -> ChatMessage {
        let author = row.nodeID("author")
        let seq: UInt64 = row["seq"]
        let timestamp: Int64 = row["timestamp"]
        // A device's message is its person's (Protocol.md §20.11); mine when my person's.
        let person = (row["person"] as [UInt8]?).flatMap(NodeID.init(bytes:)) ?? author
        let isMine = person == myPerson
        let people = MessageDetails(store: self, conversation: conversation, names: names, db: db)
        let mentions = try people.mentions(of: MessageRef(author: author, seq: seq))
        var message = ChatMessage(
            conversationID: conversation, author: author, authorName: names[person] ?? person.shortHex, seq: seq,
            isMine: isMine, text: try (row["text"] as String?).map { try people.render($0, mentions) },
            sentAt: Date(milliseconds: timestamp),
            orderKey: DisplayOrderKey(clockSum: row["clockSum"], timestamp: timestamp, author: author, seq: seq),
            status: isMine ? context.status(of: author, seq: seq) : nil)
        message.isDeleted = (row["deletedAt"] as Int64?) != nil
        message.mentions = mentions.map { NamedPerson(id: $0.person, name: people.name(of: $0.person)) }
        message.mentionsMe = mentions.contains { $0.person == me }
        if let replyAuthor = (row["replyAuthor"] as [UInt8]?).flatMap(NodeID.init(bytes:)) {
            message.replyTo = try people.quote(MessageRef(author: replyAuthor, seq: row["replySeq"]))
        }
        if !message.isDeleted { message.reactions = try people.reactions(to: message.ref) }
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
