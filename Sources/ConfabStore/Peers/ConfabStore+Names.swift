import ConfabModel
import Foundation
import GRDB

/// How names are checked against each other (Protocol.md §8.1): by skeleton, stored with
/// each peer's name (`nameSkeleton`, indexed) and computed here for my own.
extension ConfabStore {
    /// The key that already goes by this name here, or by one that looks the same: another
    /// peer (not `id`), or this node itself. nil when the name is free.
    func holder(ofName name: String, except id: NodeID, db: Database) throws -> NodeID? {
        let skeleton = NameSkeleton.of(name)
        if let row = try Row.fetchOne(
            db, sql: "SELECT id FROM peer WHERE nameSkeleton = ? AND id != ? LIMIT 1", arguments: [skeleton, id.bytes])
        {
            return row.nodeID("id")
        }
        let myName = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'displayName'")
        if let myName, NameSkeleton.of(myName) == skeleton { return me }
        return nil
    }

    /// What a key seen for the first time is called here, given the name its Hello claimed.
    /// A free name is kept (cleaned). A name that is taken, looks like a taken one, or looks
    /// like a key is never taken as given: the key is named `base (short key)`, or with its
    /// full key should that be taken too, and the claim is kept for the warning. `conflict`
    /// is the key the claim collides with: the holder of the name, or the key itself for a
    /// name that looks like a key.
    func nameForNewKey(
        _ id: NodeID, claiming suggested: String, db: Database
    ) throws -> (name: String, claimed: String?, conflict: NodeID?) {
        let name = DisplayName.cleaned(suggested)
        guard !name.isEmpty, name.utf8.count <= Limits.maxNameBytes else { return (id.shortHex, nil, nil) }
        let base: String
        let conflict: NodeID
        if DisplayName.looksLikeKey(name) {
            base = DisplayName.base(ofKeyLike: name)
            conflict = id
        } else if let holder = try holder(ofName: name, except: id, db: db) {
            base = name
            conflict = holder
        } else {
            return (name, nil, nil)
        }
        var distinct = "\(base) (\(id.shortHex))"
        // Two impostors with one short key prefix are still told apart.
        if try holder(ofName: distinct, except: id, db: db) != nil { distinct = "\(base) (\(id.hex))" }
        return (distinct, suggested.trimmingCharacters(in: .whitespacesAndNewlines), conflict)
    }

    /// Refuses a name a person chose for a peer when it looks like a key or is taken here.
    func checkChosenName(_ name: String, for id: NodeID, db: Database) throws {
        if let refusal = DisplayName.keyLikeRefusal(name) { throw StoreError.invalidInput(refusal) }
        guard let holder = try holder(ofName: name, except: id, db: db) else { return }
        if holder == me {
            throw StoreError.invalidInput(
                "\"\(name)\" is your own name here (or looks the same); choose another name for this peer")
        }
        throw StoreError.invalidInput(
            "the name \"\(name)\" is already used by another key (\(holder.shortHex)), or looks the same as its name; "
                + "choose another name")
    }
}
