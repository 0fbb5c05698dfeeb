import ConfabModel
import GRDB

/// Loose facts about this store (its owner, my display name, what the chat last had open)
/// are key-value rows in `meta`: each is read by its key alone, so none needs a column.
extension ConfabStore {
    public func metaValue(_ key: String) throws -> String? {
        try read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [key])
        }
    }

    public func setMetaValue(_ key: String, _ value: String) throws {
        try write { db in
            try db.execute(
                sql: "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        }
    }

    /// My display name, as others will see it.
    public func displayName() throws -> String? { try metaValue("displayName") }

    /// Stored cleaned; a name that looks like a key is refused, as for peers.
    public func setDisplayName(_ name: String) throws {
        let name = DisplayName.cleaned(name)
        guard !name.isEmpty, name.utf8.count <= Limits.maxNameBytes else {
            throw StoreError.invalidInput("a display name needs 1 to \(Limits.maxNameBytes) bytes")
        }
        if let refusal = DisplayName.keyLikeRefusal(name) { throw StoreError.invalidInput(refusal) }
        try setMetaValue("displayName", name)
    }
}
