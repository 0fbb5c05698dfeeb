import ConfabModel
import Foundation
import GRDB

/// What the person set before it had a second machine (Protocol.md §20.15, the snapshot):
/// settings are written only once a list exists, so the person key writes, when it creates
/// the personal conversation, one setting for each state it holds that differs from a new
/// machine's: flags that are on, the typing setting when off, each peer key's trust when
/// not unverified and each peer key's name.
extension ConfabStore {
    func writeSettingSnapshot(in personal: ConversationID, db: Database, now: Date) throws {
        var settings: [PersonalSetting] = []
        // My person's key, its devices and mine: named by the list, trusted as myself.
        let mine = try myDevices(db: db)
        for row in try Row.fetchAll(db, sql: "SELECT id, name, claimedName, addedByHand, trust FROM peer ORDER BY id") {
            let peer = row.nodeID("id")
            guard !mine.contains(peer) else { continue }
            if let name = Self.nameSetting(of: peer, row: row) { settings.append(name) }
            let trust = Peer.Trust(rawValue: row["trust"]) ?? .unverified
            if trust != .unverified {
                settings.append(PersonalSetting(target: peer.bytes, field: .trust, value: trust.settingValue)!)
            }
        }
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT conversationId, archived, pinned, muted, markedUnread FROM local_state
                WHERE conversationId != ? AND (archived OR pinned OR muted OR markedUnread)
                ORDER BY conversationId
                """,
            arguments: [personal.bytes])
        {
            guard let conversation = ConversationID(bytes: row["conversationId"] as [UInt8]) else { continue }
            for flag in LocalFlag.allCases where row[flag.rawValue] as Bool {
                settings.append(.flag(flag.settingField, true, of: conversation))
            }
        }
        let typing = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.typingKey])
        if typing == "off" { settings.append(PersonalSetting(target: [], field: .typing, value: 0)!) }
        for setting in settings { try writeSetting(setting, in: personal, db: db, now: now) }
    }
}
