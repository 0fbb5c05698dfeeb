import ConfabModel
import GRDB

/// Which keys met here are another person's devices, so that a person is one peer however
/// many machines they use (issue 33: Bob lists Alice once). Only a list signed by the person
/// says so, and only for a key that is nobody in its own right here.
public struct DeviceOwner: Sendable, Equatable {
    public let person: NodeID
    /// The device's name in the person's list.
    public let name: String

    public init(person: NodeID, name: String) {
        self.person = person
        self.name = name
    }
}

extension ConfabStore {
    /// The keys another person's held list lists now, each with that person: a key one list
    /// alone claims (two claims make it nobody's), not of my own person, and not a person of
    /// its own here — named a member of a conversation, added by hand or verified. A list is
    /// its signer's word alone, so a list naming Bob's key never makes Bob someone's device.
    public func deviceOwners() throws -> [NodeID: DeviceOwner] {
        try read { db in
            let authors = try deviceAuthors(db: db)
            guard !authors.isEmpty else { return [:] }
            let mine = try myDevices(db: db)
            var owners: [NodeID: DeviceOwner] = [:]
            for key in authors.namedKeys where !mine.contains(key) {
                owners[key] = try deviceOwner(of: key, authors: authors, db: db)
            }
            return owners
        }
    }

    /// The names persons' lists give their own keys (their first machines), where a rename
    /// named one: `peers` shows them beside the listed machines' names.
    public func personDeviceNames() throws -> [NodeID: String] {
        try read { db in try deviceAuthors(db: db).personDeviceNames }
    }

    /// `deviceOwners()` for one key.
    func deviceOwner(of key: NodeID, db: Database) throws -> DeviceOwner? {
        let authors = try deviceAuthors(db: db)
        guard authors.names(key), try !myDevices(db: db).contains(key) else { return nil }
        return try deviceOwner(of: key, authors: authors, db: db)
    }

    private func deviceOwner(of key: NodeID, authors: DeviceAuthors, db: Database) throws -> DeviceOwner? {
        let person = authors.currentPerson(of: key, members: nil)
        guard person != key, person != myPerson, try !isPersonInOwnRight(key, db: db) else { return nil }
        return DeviceOwner(person: person, name: authors.name(of: key) ?? key.shortHex)
    }

    /// Whether `key` is someone here by more than a list's word: a member (now or before)
    /// of a conversation, or a peer my person added by hand or verified.
    func isPersonInOwnRight(_ key: NodeID, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM participant WHERE nodeId = ?1)
                        OR EXISTS (SELECT 1 FROM former_member WHERE nodeId = ?1)
                        OR EXISTS (SELECT 1 FROM peer WHERE id = ?1 AND (addedByHand = 1 OR trust <> 'unverified'))
                    """),
            arguments: [key.bytes]) ?? false
    }
}
