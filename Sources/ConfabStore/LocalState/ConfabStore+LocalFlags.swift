import ConfabModel
import GRDB

extension ConfabStore {
    public func setFlag(_ flag: LocalFlag, _ value: Bool, on conversation: ConversationID) throws {
        try write { db in
            try self.requireConversation(conversation, db: db)
            try db.execute(
                sql: "INSERT OR IGNORE INTO local_state(conversationId) VALUES (?)", arguments: [conversation.bytes])
            try db.execute(
                sql: "UPDATE local_state SET \(flag.rawValue) = ? WHERE conversationId = ?",
                arguments: [value, conversation.bytes])
        }
    }
}
