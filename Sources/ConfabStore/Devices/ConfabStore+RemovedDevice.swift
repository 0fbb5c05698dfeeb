import ConfabModel
import Foundation
import GRDB

/// A linked device that learns its person removed it (Protocol.md §20.13). Its entries past
/// the cuts would be refused everywhere (§20.11), so it writes none as its person: it says
/// so instead of writing what nobody would take.
extension ConfabStore {
    /// How my person's held list removed this device; nil while it lists it, and always on
    /// the machine whose key is its person key (never removed, §20).
    public func myDeviceRemoval() throws -> MyDeviceRemoval? {
        try read { db in try myDeviceRemoval(db: db) }
    }

    func myDeviceRemoval(db: Database) throws -> MyDeviceRemoval? {
        let person = myPerson
        guard person != me else { return nil }
        let list = try heldDeviceList(of: person, db: db)
        guard let removal = list.removal(of: me), removal.removedAt >= 1, Int(removal.removedAt) <= list.count
        else { return nil }
        let entry = list.entries[Int(removal.removedAt) - 1]
        let name = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'displayName'")
        return MyDeviceRemoval(
            person: person, personName: name.flatMap { $0.isEmpty ? nil : $0 } ?? person.shortHex,
            removedAt: Date(timeIntervalSince1970: TimeInterval(entry.timestamp) / 1000))
    }

    /// Throws when this device was removed: every write as my person goes through here.
    func requireNotRemoved(db: Database) throws {
        if let removal = try myDeviceRemoval(db: db) { throw StoreError.deviceRemoved(removal) }
    }
}
