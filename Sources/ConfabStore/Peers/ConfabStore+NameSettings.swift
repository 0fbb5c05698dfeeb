import ConfabModel
import Foundation
import GRDB

/// Names of peer keys travel between the person's devices as name settings (field 8,
/// Protocol.md §20.15): a name the person gave by hand is the person's own label and names
/// the key on every device; a name a key gave itself stays a claim on every device, taken
/// only where the key has no name yet, as §4.8.6 takes one.
extension ConfabStore {
    /// What a name setting taken here does: never names this node's key, its person's, or
    /// one of its person's machines (their names are the list's); a name by hand becomes
    /// this device's label for the key, a claim names an unnamed key. Both pass §8.1's
    /// collision check: a name another key has here gets the `name (1a2b3c4d)` form.
    func adoptName(_ setting: PersonalSetting, db: Database, now: Date) throws {
        // My devices: my person's key, every key its list names, and mine.
        guard let peer = NodeID(bytes: setting.target), let name = setting.name, try !myDevices(db: db).contains(peer)
        else { return }
        let row = try Row.fetchOne(
            db, sql: "SELECT name, claimedName, addedByHand FROM peer WHERE id = ?", arguments: [peer.bytes])
        let naming = try nameForNewKey(peer, claiming: name, db: db)
        if setting.value == 1 {
            // The person chose it: no warning, though it may have to carry the key to stay
            // apart from a name another key has on this device.
            try db.execute(
                sql: """
                    INSERT INTO peer(id, name, nameSkeleton, addedAt, addedByHand) VALUES (?, ?, ?, ?, 1)
                    ON CONFLICT(id) DO UPDATE SET
                        name = excluded.name, nameSkeleton = excluded.nameSkeleton, claimedName = NULL,
                        addedByHand = 1
                    """,
                arguments: [peer.bytes, naming.name, NameSkeleton.of(naming.name), now.millisecondsSince1970])
        } else {
            if let row {
                guard Self.isUnnamed(peer, row: row) else { return }
            } else if try deviceOwner(of: peer, db: db) != nil {
                // Another person's machine, by that person's list: that person, not a peer.
                return
            }
            try db.execute(
                sql: """
                    INSERT INTO peer(id, name, nameSkeleton, addedAt, claimedName) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET
                        name = excluded.name, nameSkeleton = excluded.nameSkeleton, claimedName = excluded.claimedName
                    """,
                arguments: [
                    peer.bytes, naming.name, NameSkeleton.of(naming.name), now.millisecondsSince1970, naming.claimed,
                ])
        }
        try refreshSearchIndex(conversationsOf: peer, db: db)
    }

    /// A key known here only by its short key: remembered for its trust before it showed
    /// up, or one whose claim was empty or too long.
    static func isUnnamed(_ peer: NodeID, row: Row) -> Bool {
        !(row["addedByHand"] as Bool) && (row["claimedName"] as String?) == nil
            && (row["name"] as String) == peer.shortHex
    }

    /// The name setting that carries what `peer` is called here, from its peer row: the
    /// person's label, or the name the key claimed (the claim itself, not the `(1a2b3c4d)`
    /// form a collision gave it here: the other device checks it against its own names).
    /// Nil for a key with no name, or a claim not in the form a name is stored in.
    static func nameSetting(of peer: NodeID, row: Row) -> PersonalSetting? {
        if row["addedByHand"] as Bool { return .name(row["name"], of: peer, byHand: true) }
        if let claimed = row["claimedName"] as String? {
            return .name(DisplayName.cleaned(claimed), of: peer, byHand: false)
        }
        guard !isUnnamed(peer, row: row) else { return nil }
        return .name(row["name"], of: peer, byHand: false)
    }
}
