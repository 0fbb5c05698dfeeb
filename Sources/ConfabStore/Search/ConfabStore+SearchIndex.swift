import ConfabModel
import GRDB

extension ConfabStore {
    /// Indexes for search the messages stored since the last commit, in one statement, as
    /// the last step of each commit (`GroupCommit`): readers never see a message that search
    /// cannot find, and FTS5 writes one segment per commit instead of one per message.
    static func indexNewMessages(_ db: Database) throws {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT upTo, (SELECT max(id) FROM message) AS last FROM message_fts_indexed")),
            let last: Int64 = row["last"]
        else { return }
        let upTo: Int64 = row["upTo"]
        guard last > upTo else { return }
        try db.cachedStatement(
            sql: """
                INSERT INTO message_fts(rowid, text) SELECT id, text FROM message WHERE id > ? AND text IS NOT NULL
                """
        ).execute(arguments: [upTo])
        try db.cachedStatement(sql: "UPDATE message_fts_indexed SET upTo = ?").execute(arguments: [last])
    }

    /// Rebuilds a conversation's row in the title/name search index. Called when the
    /// conversation arrives and when a participant's name changes.
    func refreshSearchIndex(conversation: ConversationID, db: Database) throws {
        let title = try String.fetchOne(
            db, sql: "SELECT title FROM conversation WHERE id = ?", arguments: [conversation.bytes])
        let names = try participantNames(conversation: conversation, db: db).map(\.name).joined(separator: " ")
        try db.execute(sql: "DELETE FROM conversation_fts WHERE conversationId = ?", arguments: [conversation.hex])
        try db.execute(
            sql: "INSERT INTO conversation_fts(conversationId, title, names) VALUES (?, ?, ?)",
            arguments: [conversation.hex, title ?? "", names])
    }

    /// A peer's name is indexed in every conversation it takes part in.
    func refreshSearchIndex(conversationsOf peer: NodeID, db: Database) throws {
        let conversations = try [UInt8].fetchAll(
            db, sql: "SELECT conversationId FROM participant WHERE nodeId = ?", arguments: [peer.bytes])
        for conversation in conversations.compactMap(ConversationID.init(bytes:)) {
            try refreshSearchIndex(conversation: conversation, db: db)
        }
    }

    /// Everyone but me, with the name each goes by here (their short key when unnamed).
    func participantNames(conversation: ConversationID, db: Database) throws -> [ConversationSummary.Participant] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT p.nodeId, peer.name, peer.trust FROM participant p LEFT JOIN peer ON peer.id = p.nodeId
                    WHERE p.conversationId = ? AND p.nodeId != ? ORDER BY p.position
                    """),
            arguments: [conversation.bytes, myPerson.bytes]
        ).map { row in
            let id = row.nodeID("nodeId")
            return ConversationSummary.Participant(
                id: id, name: (row["name"] as String?) ?? id.shortHex,
                trust: (row["trust"] as String?).flatMap(Peer.Trust.init(rawValue:)) ?? .unverified)
        }
    }
}
