import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

/// The person's settings travel between its devices (Protocol.md §20.15): each device writes
/// the changes made on it as `setting` entries of its own log in the person's personal
/// conversation, and every device takes, per target and field, the value of the change last
/// in (timestamp, author, seq) order, its own included. A person with no device list writes
/// nothing: its settings stay on its one machine, as before.
extension ConfabStore {
    /// This node's person's personal conversation, when held here.
    public func personalConversation() throws -> ConversationID? {
        try read { db in try personalConversation(db: db) }
    }

    func personalConversation(db: Database) throws -> ConversationID? {
        try [UInt8].fetchOne(
            db.cachedStatement(
                sql: "SELECT id FROM conversation WHERE personal = 1 AND creator = ? ORDER BY createdAt, id LIMIT 1"),
            arguments: [myPerson.bytes]
        ).flatMap(ConversationID.init(bytes:))
    }

    /// Creates the personal conversation when this node holds the person key, the person has
    /// a device list, and none is held: at a link, before the grant, so its key goes with the
    /// others (Protocol.md §20.10). Returns the one held, if any.
    @discardableResult
    public func ensurePersonalConversation(now: Date = Date()) throws -> ConversationID? {
        try write { db in try self.ensurePersonalConversation(db: db, now: now) }
    }

    private func ensurePersonalConversation(db: Database, now: Date) throws -> ConversationID? {
        if let held = try personalConversation(db: db) { return held }
        // Only the person key writes a create of P (a device creates nothing, §20.11).
        guard myPerson == me, try !heldDeviceList(of: me, db: db).isEmpty else { return nil }
        let genesis = try NewConversation(
            members: [me], creator: me, title: nil, sealingKeys: try sealingKeys(for: [me], db: db))
        try authorCreate(genesis, personal: true, db: db, now: now)
        // What the person set before it had a second machine, so the first one linked starts
        // where this one is; later links find it already written here.
        try writeSettingSnapshot(in: genesis.id, db: db, now: now)
        return genesis.id
    }

    /// Writes a change made here as a `setting` entry of my log in the personal conversation,
    /// in the write that made it. Nothing when the person has no list; a linked device that
    /// does not hold the personal conversation yet keeps the change to itself.
    func recordSetting(_ setting: PersonalSetting, db: Database, now: Date) throws {
        guard try !heldDeviceList(of: myPerson, db: db).isEmpty,
            let conversation = try ensurePersonalConversation(db: db, now: now)
        else { return }
        try writeSetting(setting, in: conversation, db: db, now: now)
    }

    /// Signs `setting` as the next entry of my log in `conversation`, my person's personal
    /// conversation, and takes it as any.
    func writeSetting(_ setting: PersonalSetting, in conversation: ConversationID, db: Database, now: Date) throws {
        let key = try sealingKey(in: conversation, db: db, now: now)
        // Stamped after the change in force, whatever this machine's clock says: a change made
        // after another was seen here wins over it on every device, even from a machine whose
        // clock is behind (the order is by timestamp, Protocol.md §20.15).
        let inForce = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT timestamp FROM personal_setting WHERE target = ? AND field = ?"),
            arguments: [setting.target, setting.field.rawValue])
        let stamp = min(max(now.millisecondsSince1970, (inForce ?? .min) + 1), Limits.timestampRange.upperBound)
        let at = Date(milliseconds: stamp)
        _ = try authorEntry(in: conversation, db: db, now: at, context: BatchContext(store: self, now: at)) { seq in
            let sealed = try SettingCipher.seal(
                setting, key: key, conversationID: conversation, author: self.me, seq: seq)
            return (.setting(sealed: sealed), nil)
        }
    }

    /// A `setting` entry is written only in a personal conversation, and a personal
    /// conversation never changes its members: it stays its person's alone (§20.15). A rekey
    /// (a members entry that adds and removes nobody) is what a device's removal writes
    /// there, as in every conversation of the person (§20.13).
    func checkPersonalKind(_ entry: Entry, db: Database) throws {
        let personal = try isPersonal(entry.conversationID, db: db)
        if entry.kind == .setting, !personal {
            throw AppendRejection.badTarget("a setting outside a personal conversation")
        }
        if personal, case .members(let members) = entry.body, !members.add.isEmpty || !members.remove.isEmpty {
            throw AppendRejection.badMembership("a personal conversation's members")
        }
    }

    func isPersonal(_ conversation: ConversationID, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT personal FROM conversation WHERE id = ?"), arguments: [conversation.bytes])
            ?? false
    }

    /// A `setting` entry stored (mine or another device's): when it is my person's, in my
    /// person's personal conversation, and opens, it becomes the value of its target and
    /// field if it is last in (timestamp, author, seq) order, and that value is what this
    /// device uses from then on. A relay, or any other node, keeps only the entry.
    func applySetting(
        _ entry: Entry, sealed: [UInt8], person: NodeID, epoch: EntryRef?, db: Database, now: Date,
        context: BatchContext
    ) throws {
        guard person == myPerson, try personalConversation(db: db) == entry.conversationID, let epoch,
            let key = try context.epochKey(entry.conversationID, epoch: epoch, db: db),
            let setting = try? SettingCipher.open(
                sealed, key: SecureBytes(key), conversationID: entry.conversationID, author: entry.author,
                seq: entry.seq)
        else { return }
        try db.cachedStatement(
            sql: """
                INSERT INTO personal_setting(target, field, value, timestamp, author, seq, name)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(target, field) DO UPDATE
                SET value = excluded.value, timestamp = excluded.timestamp, author = excluded.author, seq = excluded.seq,
                    name = excluded.name
                WHERE (excluded.timestamp, excluded.author, excluded.seq)
                    > (personal_setting.timestamp, personal_setting.author, personal_setting.seq)
                """
        ).execute(arguments: [
            setting.target, setting.field.rawValue, setting.value, entry.timestamp, entry.author.bytes, entry.seq,
            setting.name,
        ])
        guard db.changesCount > 0 else {
            // An older change than the one held: the held one stays in force here, even over
            // what this device just did (its clock is behind the device that wrote it).
            if entry.author == me { try adoptSetting(target: setting.target, field: setting.field, db: db, now: now) }
            return
        }
        // My own change is in force already; another device's is taken, never written again.
        if entry.author != me { try adopt(setting, db: db, now: now) }
    }

    /// The value in force of `field` for `target`, used here again.
    private func adoptSetting(target: [UInt8], field: PersonalSetting.Field, db: Database, now: Date) throws {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT value, name FROM personal_setting WHERE target = ? AND field = ?"),
                arguments: [target, field.rawValue]),
            let setting = PersonalSetting(target: target, field: field, value: row["value"], name: row["name"])
        else { return }
        try adopt(setting, db: db, now: now)
    }

    /// Uses `setting` here, as the local change it stands for would, without writing it.
    private func adopt(_ setting: PersonalSetting, db: Database, now: Date) throws {
        let on = setting.value != 0
        switch setting.field {
        case .pinned: try storeFlag(.pinned, on, on: setting.target, db: db)
        case .archived: try storeFlag(.archived, on, on: setting.target, db: db)
        case .muted: try storeFlag(.muted, on, on: setting.target, db: db)
        case .markedUnread: try storeFlag(.markedUnread, on, on: setting.target, db: db)
        case .deleted:
            // What the deleting device held goes, not what came here after it deleted; a
            // conversation not held yet has nothing to delete.
            guard on, let conversation = ConversationID(bytes: setting.target),
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM conversation WHERE id = ?"), arguments: [setting.target])
                    != nil
            else { return }
            try deleteConversationHere(conversation, upto: setting.upto, db: db, now: now)
        case .typing: try storeTypingIndicators(on, db: db)
        case .trust:
            guard let peer = NodeID(bytes: setting.target), peer != me, peer != myPerson else { return }
            try storeTrust(peer, Peer.Trust(settingValue: setting.value), db: db, now: now)
        case .name:
            try adoptName(setting, db: db, now: now)
        }
    }
}
