import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// The keys whose messages are stored but never shown: every message query excludes
    /// their authors with this subquery (the peer table is small and indexed by trust).
    static let blockedAuthorsSQL = "(SELECT id FROM peer WHERE trust = 'blocked')"

    /// Sets how far this node trusts a key. Trust belongs to the key, never to a name: a
    /// new key that takes a verified peer's name starts unverified. A key not known yet is
    /// remembered under its short key, so it can be blocked before it ever shows up.
    /// The person's other devices take it too (Protocol.md §20.15).
    public func setTrust(_ id: NodeID, _ trust: Peer.Trust, now: Date = Date()) throws {
        guard id != me else { throw StoreError.invalidInput("that key is this node's own identity") }
        try write { db in
            try self.storeTrust(id, trust, db: db, now: now)
            try self.recordSetting(
                PersonalSetting(target: id.bytes, field: .trust, value: trust.settingValue)!, db: db, now: now)
        }
    }

    /// The trust as stored here, in the caller's write.
    func storeTrust(_ id: NodeID, _ trust: Peer.Trust, db: Database, now: Date) throws {
        try db.execute(
            sql: """
                INSERT INTO peer(id, name, nameSkeleton, trust, addedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET trust = excluded.trust
                """,
            arguments: [
                id.bytes, id.shortHex, NameSkeleton.of(id.shortHex), trust.rawValue, now.millisecondsSince1970,
            ])
        // Verified as the person is now, devices included: a device linked or removed
        // later shows (Peer.devicesChangedSinceVerified) until they are verified again.
        try db.execute(
            sql: """
                UPDATE peer SET verifiedListLength = CASE WHEN trust = 'verified'
                    THEN (SELECT COUNT(*) FROM device_entry WHERE person = peer.id) END
                WHERE id = ?
                """,
            arguments: [id.bytes])
    }

    public func blockedPeers() throws -> Set<NodeID> {
        try read { db in
            Set(
                try [UInt8].fetchAll(db, sql: "SELECT id FROM peer WHERE trust = 'blocked'")
                    .compactMap(NodeID.init(bytes:)))
        }
    }
}

extension Peer.Trust {
    /// The value of a `trust` setting (Protocol.md §20.15).
    var settingValue: UInt32 {
        switch self {
        case .unverified: return 0
        case .verified: return 1
        case .blocked: return 2
        }
    }

    init(settingValue: UInt32) {
        self = settingValue == 2 ? .blocked : settingValue == 1 ? .verified : .unverified
    }
}
