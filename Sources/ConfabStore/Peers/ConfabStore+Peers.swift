import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    public func peers() throws -> [Peer] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.peerColumns("peer")) FROM peer ORDER BY name COLLATE NOCASE, id")
                .map(Peer.init(row:))
        }
    }

    public func peer(_ id: NodeID) throws -> Peer? {
        try readUnisolated { db in
            // Cached: the node asks on every message a session brings (presence).
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(Self.peerColumns("peer")) FROM peer WHERE id = ?"),
                arguments: [id.bytes]
            )
            .map(Peer.init(row:))
        }
    }

    /// Adds a peer, or renames one already known. The name is what this node calls it;
    /// the search index of its conversations follows, and so do the person's other devices
    /// (a name by hand, Protocol.md §20.15). Names that look like keys, and names taken
    /// here (or looking the same as one), are refused.
    public func savePeer(_ id: NodeID, name: String, now: Date = Date()) throws {
        let name = DisplayName.cleaned(name)
        guard !name.isEmpty else { throw StoreError.invalidInput("a peer needs a name") }
        guard name.utf8.count <= Limits.maxNameBytes else {
            throw StoreError.invalidInput("the name is longer than \(Limits.maxNameBytes) bytes")
        }
        guard id != me else { throw StoreError.invalidInput("that key is this node's own identity") }
        try write { db in
            try self.checkChosenName(name, for: id, db: db)
            try db.execute(
                sql: """
                    INSERT INTO peer(id, name, nameSkeleton, addedAt, addedByHand) VALUES (?, ?, ?, ?, 1)
                    ON CONFLICT(id) DO UPDATE SET
                        name = excluded.name, nameSkeleton = excluded.nameSkeleton, addedByHand = 1
                    """,
                arguments: [id.bytes, name, NameSkeleton.of(name), now.millisecondsSince1970])
            try self.refreshSearchIndex(conversationsOf: id, db: db)
            // checkChosenName refused what the setting could not carry.
            if let setting = PersonalSetting.name(name, of: id, byHand: true) {
                try self.recordSetting(setting, db: db, now: now)
            }
        }
    }
}

extension ConfabStore {
    /// What `Peer(row:)` reads of the peer table aliased `table`: its columns, and whether
    /// a verified peer's devices changed since my person verified them: an entry after the
    /// ones it had then that adds or removes one (a rename changes no key).
    static func peerColumns(_ table: String) -> String {
        """
        \(table).*, (\(table).trust = 'verified' AND EXISTS (SELECT 1 FROM device_entry d WHERE d.person = \(table).id
            AND d.seq > COALESCE(\(table).verifiedListLength, 0) AND d.renames = 0)) AS devicesChanged
        """
    }
}

extension Peer {
    init(row: Row) {
        self.init(
            id: row.nodeID("id"), name: row["name"], trust: Trust(rawValue: row["trust"]) ?? .unverified,
            addedAt: Date(milliseconds: row["addedAt"]),
            lastSeenAt: (row["lastSeenAt"] as Int64?).map(Date.init(milliseconds:)), address: row["address"],
            claimedName: row["claimedName"])
        devicesChangedSinceVerified = (row["devicesChanged"] as Bool?) == true ? true : nil
    }
}

extension ConfabStore {
    /// A peer connected and said who it is. An unknown key is remembered under the name it
    /// gave (trust on first use binds that name to this key), cleaned of invisible
    /// characters. If another key already goes by that name here, or by one that looks the
    /// same, or it is my own name, the new key is never merged: it is named `name (short
    /// key)` and its claimed name is kept as a warning. A name that looks like a key is
    /// never taken either: the key is named `peer (short key)` (or the claim without its
    /// bracketed hex) with the same warning. Returns the key the claim collides with (my
    /// own for my name, the new key itself for a key-like name), else nil. A known peer whose
    /// name here came from its own claims follows a new claim, checked the same way; one my
    /// person named keeps that name.
    @discardableResult
    public func notePeerSeen(
        _ id: NodeID, suggestedName: String, address: String?, now: Date = Date()
    ) throws -> NodeID? {
        guard id != me else { return nil }
        return try write { db -> NodeID? in
            var conflict: NodeID?
            let known = try Bool.fetchOne(db, sql: "SELECT 1 FROM peer WHERE id = ?", arguments: [id.bytes]) != nil
            // Another person's machine, by that person's signed list, is that person: no peer
            // of its own (Bob lists Alice once), and no look-alike of her name.
            if !known, let owner = try self.deviceOwner(of: id, db: db) {
                try db.execute(
                    sql: "UPDATE peer SET lastSeenAt = ? WHERE id = ?",
                    arguments: [now.millisecondsSince1970, owner.person.bytes])
                return nil
            }
            // Another machine of my own person is no impostor, whatever name it shares with me:
            // my person's signed list says so (Protocol.md §20.11), not the machine itself.
            let ownDevice = try self.ownDeviceLabel(id, db: db)
            if !known {
                var naming = try self.nameForNewKey(id, claiming: ownDevice ?? suggestedName, db: db)
                if ownDevice != nil { naming = (naming.name, nil, nil) }
                conflict = naming.conflict
                try db.execute(
                    sql: "INSERT INTO peer(id, name, nameSkeleton, addedAt, claimedName) VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        id.bytes, naming.name, NameSkeleton.of(naming.name), now.millisecondsSince1970, naming.claimed,
                    ])
                try self.refreshSearchIndex(conversationsOf: id, db: db)
            } else if ownDevice == nil {
                conflict = try self.followClaim(id, suggestedName: suggestedName, db: db)
            }
            try db.execute(
                sql: "UPDATE peer SET lastSeenAt = ?, address = COALESCE(?, address) WHERE id = ?",
                arguments: [now.millisecondsSince1970, address, id.bytes])
            if let address { try self.rememberAddress(address, of: id, now: now, db: db) }
            return conflict
        }
    }

    /// A known key claims another name than it did (not one that only looks different):
    /// its person renamed themselves. The name
    /// follows unless my person named the key (that label is theirs), through the checks a new
    /// key's name passes, so a rename can never take another key's name or look like a key.
    private func followClaim(_ id: NodeID, suggestedName: String, db: Database) throws -> NodeID? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT name, claimedName, addedByHand FROM peer WHERE id = ?", arguments: [id.bytes]),
            !(row["addedByHand"] as Bool)
        else { return nil }
        let claim = DisplayName.cleaned(suggestedName)
        let current: String = row["name"]
        let previous = (row["claimedName"] as String?).map(DisplayName.cleaned) ?? current
        guard !claim.isEmpty, claim.utf8.count <= Limits.maxNameBytes,
            NameSkeleton.of(claim) != NameSkeleton.of(previous)
        else { return nil }
        let naming = try nameForNewKey(id, claiming: suggestedName, db: db)
        try db.execute(
            sql: "UPDATE peer SET name = ?, nameSkeleton = ?, claimedName = ? WHERE id = ?",
            arguments: [naming.name, NameSkeleton.of(naming.name), naming.claimed, id.bytes])
        try refreshSearchIndex(conversationsOf: id, db: db)
        return naming.conflict
    }
}
