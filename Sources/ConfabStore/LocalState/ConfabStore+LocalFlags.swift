import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// Sets a flag of a conversation here, and on the person's other devices through the
    /// personal conversation when the person has any (Protocol.md §20.15).
    public func setFlag(_ flag: LocalFlag, _ value: Bool, on conversation: ConversationID, now: Date = Date()) throws {
        try write { db in
            try self.requireConversation(conversation, db: db)
            try self.storeFlag(flag, value, on: conversation.bytes, db: db)
            try self.recordSetting(.flag(flag.settingField, value, of: conversation), db: db, now: now)
        }
    }

    /// The flag as stored here, for a conversation that may not be held yet (a setting taken
    /// before the conversation arrives waits in its row).
    func storeFlag(_ flag: LocalFlag, _ value: Bool, on conversation: [UInt8], db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO local_state(conversationId) VALUES (?)", arguments: [conversation])
        try db.execute(
            sql: "UPDATE local_state SET \(flag.rawValue) = ? WHERE conversationId = ?",
            arguments: [value, conversation])
    }
}

extension LocalFlag {
    var settingField: PersonalSetting.Field {
        switch self {
        case .archived: return .archived
        case .pinned: return .pinned
        case .muted: return .muted
        case .markedUnread: return .markedUnread
        }
    }
}
