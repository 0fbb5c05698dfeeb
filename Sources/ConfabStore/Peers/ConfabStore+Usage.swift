import ConfabModel
import GRDB

extension ConfabStore {
    /// Keys added by hand (`confab peers add`), as opposed to peers only seen on the
    /// network: a relay's allow-list.
    public func peersAddedByHand() throws -> Set<NodeID> {
        try read { db in
            Set(try Row.fetchAll(db, sql: "SELECT id FROM peer WHERE addedByHand = 1").map { $0.nodeID("id") })
        }
    }

    /// The bytes of every stored entry, as received: what a relay's quota counts.
    public func storedEntryBytes() throws -> Int {
        try read { db in Int(try Double.fetchOne(db, sql: "SELECT total(length(raw)) FROM entry") ?? 0) }
    }
}

extension ConfabStore {
    /// The bytes of stored entries per author: what a person's per-author quota counts.
    public func storedEntryBytesByAuthor() throws -> [NodeID: Int] {
        try read { db in
            var bytes: [NodeID: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT author, total(length(raw)) AS size FROM entry GROUP BY author")
            {
                bytes[row.nodeID("author")] = Int(row["size"] as Double)
            }
            return bytes
        }
    }
}
