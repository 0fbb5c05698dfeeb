import ConfabModel
import GRDB

extension ConfabStore {
    /// Keys added by hand (`confab peers add`), as opposed to peers only seen on the
    /// network: a relay's allow-list.
    public func peersAddedByHand() throws -> Set<NodeID> {
        try writer.read { db in
            Set(try Row.fetchAll(db, sql: "SELECT id FROM peer WHERE addedByHand = 1").map { $0.nodeID("id") })
        }
    }

    /// The bytes of every stored entry, as received: what a relay's quota counts.
    public func storedEntryBytes() throws -> Int {
        try writer.read { db in Int(try Double.fetchOne(db, sql: "SELECT total(length(raw)) FROM entry") ?? 0) }
    }
}
