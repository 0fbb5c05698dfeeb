import ConfabModel
import ConfabWire
import GRDB

/// Repairs the migrations make from what the store already holds.
extension ConfabStore {
    /// Each conversation's members and first key epoch from its create entry, for those that
    /// have none recorded yet.
    static func backfillMembership(_ db: Database) throws {
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT c.id, c.conversationKey, e.raw FROM conversation c
                JOIN entry e ON e.conversationId = c.id AND e.author = c.creator AND e.seq = 1
                WHERE NOT EXISTS (SELECT 1 FROM membership_event m WHERE m.conversationId = c.id)
                """
        ) {
            guard let entry = try? EntryCodec.decode(row["raw"]), case .create(let create) = entry.body else {
                continue
            }
            try ConfabStore.insertMembershipEvent(
                MembershipEvent(create: entry, body: create), conversation: entry.conversationID, db: db)
            if let key = row["conversationKey"] as [UInt8]? {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO epoch_key(conversationId, author, seq, key) VALUES (?, ?, 1, ?)",
                    arguments: [entry.conversationID.bytes, entry.author.bytes, key])
            }
        }
    }
}
