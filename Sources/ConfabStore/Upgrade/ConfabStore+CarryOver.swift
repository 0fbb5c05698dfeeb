import ConfabModel
import ConfabWire
import Foundation
import GRDB

/// A protocol 1 conversation this node started that no one took, carried to a new one.
public struct CarriedConversation: Sendable, Equatable {
    public let from: ConversationID
    public let to: ConversationID
    public let messages: Int
}

extension ConfabStore {
    /// Conversations started here by Confab 0.1.0 that reached no one before the upgrade
    /// would never reach anyone now: no node of this version takes a protocol 1 create from
    /// a peer (Protocol.md §4.9). Each is written again as a conversation of this version,
    /// with the same people, title and messages of mine at their original times, and the
    /// old one is removed from this machine. "Reached no one": no other participant's entry
    /// (not even a receipt) is held, so nobody can hold it but a node whose receipts have not
    /// come back yet, which then has the conversation twice.
    public func carryOverStrandedConversations() throws -> [CarriedConversation] {
        let stranded = try read { db in
            try [UInt8].fetchAll(
                db,
                sql: """
                    SELECT c.id FROM conversation c
                    WHERE c.creator = ? AND c.conversationKey IS NOT NULL
                      AND NOT EXISTS (SELECT 1 FROM entry e WHERE e.conversationId = c.id AND e.author != c.creator)
                    """,
                arguments: [me.bytes]
            ).compactMap(ConversationID.init(bytes:)).filter { try Self.isProtocolOne($0, db: db) }
        }
        return try stranded.map { old in try write { db in try carryOver(old, db: db) } }
    }

    private func carryOver(_ old: ConversationID, db: Database) throws -> CarriedConversation {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT c.title, e.timestamp FROM conversation c
                    JOIN entry e ON e.conversationId = c.id AND e.author = c.creator AND e.seq = 1
                    WHERE c.id = ?
                    """,
                arguments: [old.bytes])
        else { throw StoreError.unknownConversation(old.hex) }
        let members = try [UInt8].fetchAll(
            db, sql: "SELECT nodeId FROM participant WHERE conversationId = ? ORDER BY position",
            arguments: [old.bytes]
        ).compactMap(NodeID.init(bytes:))
        let others = members.filter { $0 != me }
        let title: String? = row["title"]
        let created = Date(milliseconds: row["timestamp"])
        let genesis = try NewConversation(
            members: [me] + others, creator: me, title: title, sealingKeys: try sealingKeys(for: others, db: db))
        try authorCreate(genesis, db: db, now: created)
        let new = genesis.id
        // Text as shown (edits applied), in the order written; deleted ones stay deleted.
        let messages = try Row.fetchAll(
            db,
            sql: """
                SELECT m.text, m.timestamp FROM message m
                WHERE m.conversationId = ? AND m.author = ? AND m.text IS NOT NULL AND m.deletedAt IS NULL
                  AND NOT EXISTS (SELECT 1 FROM file_message f
                                  WHERE f.conversationId = m.conversationId AND f.author = m.author AND f.seq = m.seq)
                ORDER BY m.seq
                """,
            arguments: [old.bytes, me.bytes])
        for message in messages {
            let text: String = message["text"]
            _ = try authorMessage(text, in: new, db: db, now: Date(milliseconds: message["timestamp"]))
        }
        try purgeConversation(old, db: db)
        return CarriedConversation(from: old, to: new, messages: messages.count)
    }

    /// Every row of a conversation, from every table that names one.
    func purgeConversation(_ conversation: ConversationID, db: Database) throws {
        let tables = try String.fetchAll(
            db,
            sql: """
                SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c
                WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%' AND c.name = 'conversationId'
                """)
        for table in tables {
            try db.execute(sql: "DELETE FROM \"\(table)\" WHERE conversationId = ?", arguments: [conversation.bytes])
        }
        try db.execute(sql: "DELETE FROM conversation_fts WHERE conversationId = ?", arguments: [conversation.hex])
        try db.execute(sql: "DELETE FROM conversation WHERE id = ?", arguments: [conversation.bytes])
    }
}
