import ConfabModel
import ConfabWire
import GRDB

/// What linking (Protocol.md §20.10) reads from the offering device's store and writes into
/// the new device's: the person a linked device belongs to, and the conversation keys.
extension ConfabStore {
    static let personMetaKey = "person"

    /// The person this device was linked to; nil for a device whose key is its person key.
    public func linkedPerson() throws -> NodeID? {
        guard let hex = try metaValue(Self.personMetaKey) else { return nil }
        guard let person = NodeID(hex: hex) else {
            throw StoreError.invalidInput("the store's person key is damaged: \(hex.prefix(80))")
        }
        return person
    }

    /// The key that signs this device's person's list: its own key unless it was linked.
    public func personKey() throws -> NodeID {
        try linkedPerson() ?? me
    }

    /// Every conversation key held here, ordered so a transfer is the same each time.
    public func epochKeys() throws -> [LinkEpochKey] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT conversationId, author, seq, key FROM epoch_key ORDER BY conversationId, author, seq"
            ).map { row in
                LinkEpochKey(
                    conversation: row.conversationID("conversationId"), author: row.nodeID("author"), seq: row["seq"],
                    key: row["key"])
            }
        }
    }

    /// Writes what a checked grant gave a new device, in one transaction: the person's list
    /// (checked again as any list offered), the person, the display name and the keys.
    public func takeLink(person: NodeID, list: [[UInt8]], displayName: String, keys: [LinkEpochKey]) throws {
        _ = try offerDeviceList(list, of: person)
        try write { db in
            try db.execute(
                sql: "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [Self.personMetaKey, person.hex])
            let statement = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO epoch_key(conversationId, author, seq, key) VALUES (?, ?, ?, ?)")
            for key in keys {
                try statement.execute(arguments: [key.conversation.bytes, key.author.bytes, key.seq, key.key])
            }
        }
        linkedPersonKey.withLock { $0 = person }
        try setDisplayName(displayName)
    }
}
