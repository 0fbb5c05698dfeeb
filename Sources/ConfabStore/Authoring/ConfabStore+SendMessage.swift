import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Writes one message of mine; when this returns, the message is durably stored and
    /// queued for sending.
    public func sendMessage(_ text: String, to conversation: ConversationID, now: Date = Date()) throws -> Entry {
        try Self.checkText(text)
        return try writer.write { db in try self.authorMessage(text, in: conversation, db: db, now: now) }
    }

    /// Several messages in one transaction (`send --lines` reading a fast pipe).
    public func sendMessages(_ texts: [String], to conversation: ConversationID, now: Date = Date()) throws -> [Entry] {
        for text in texts { try Self.checkText(text) }
        return try writer.write { db in
            try texts.map { try self.authorMessage($0, in: conversation, db: db, now: now) }
        }
    }

    func authorMessage(_ text: String, in conversation: ConversationID, db: Database, now: Date) throws -> Entry {
        guard let keyBytes = try Self.conversationKey(conversation, db: db) else {
            throw StoreError.unknownConversation(conversation.hex)
        }
        let seq = try nextSeq(conversation, db: db)
        let sealed = try ConversationCipher.sealMessage(
            text, key: SecureBytes(keyBytes), conversationID: conversation, author: me, seq: seq)
        return try authorEntry(in: conversation, body: .message(sealed: sealed), db: db, now: now)
    }

    static func checkText(_ text: String) throws {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw StoreError.invalidInput("the message is empty")
        }
        guard text.utf8.count <= Limits.maxMessageTextBytes else {
            throw StoreError.invalidInput(
                "the message is \(text.utf8.count) bytes; the limit is \(Limits.maxMessageTextBytes)")
        }
    }
}
