import ConfabCrypto
import ConfabModel
import ConfabWire
import GRDB

/// Which keys a conversation's keys are sealed to, and which open them here (Protocol.md
/// §20.12): a member whose device list is held gets them under its person's encryption key,
/// so that each of its devices reads; this node opens with its own key, then with each
/// encryption key its person's list wraps to it.
extension ConfabStore {
    /// The sealing keys for `members`: E of each one whose non-empty list is held here.
    func sealingKeys(for members: [NodeID], db: Database) throws -> SealingKeys {
        // One read of the persons with a list, then a fold only for members among them:
        // most members have none, and a large group has thousands.
        let listed = Set(
            try [UInt8].fetchAll(db.cachedStatement(sql: "SELECT DISTINCT person FROM device_entry"))
                .compactMap(NodeID.init(bytes:)))
        var keys: [NodeID: [UInt8]] = [:]
        for member in Set(members) where listed.contains(member) {
            if let key = try heldDeviceList(of: member, db: db).encryptionKey { keys[member] = key }
        }
        return SealingKeys(encryptionKeys: keys)
    }

    func sealingKeys(for members: [NodeID]) throws -> SealingKeys {
        try readUnisolated { db in try sealingKeys(for: members, db: db) }
    }

    /// What this node opens the keys sealed to its person with.
    func openingKeys(db: Database) throws -> OpeningKeys {
        let own = OpeningKeys(identity: identity)
        let list = try heldDeviceList(of: myPerson, db: db)
        guard !list.isEmpty else { return own }
        // A linked device reads as its person, and its own key opens nothing sealed to that.
        let exchangeKeys = myPerson == me ? own.exchangeKeys : []
        return OpeningKeys(member: myPerson, exchangeKeys: exchangeKeys + list.encryptionKeyPairs(for: identity))
    }
}
