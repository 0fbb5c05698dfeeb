import ConfabModel
import ConfabWire
import GRDB

extension ConfabStore {
    /// The people `@name` can mention in `conversation`: the other members, by the names
    /// this node knows them by.
    func mentionCandidates(in conversation: ConversationID, db: Database) throws -> [Mentions.Candidate] {
        try participantNames(conversation: conversation, db: db).map {
            Mentions.Candidate(person: $0.id, name: $0.name)
        }
    }

    /// What a message of mine seals: its text, the reply, and the members its `@name`s
    /// mention. Refused when it does not fit the plaintext limit (a reply and mentions take
    /// from the text's room, Protocol.md §4.6).
    static func content(_ text: String, replyTo: MessageRef?, candidates: [Mentions.Candidate]) throws -> MessageContent
    {
        let content = MessageContent(
            text: text, replyTo: replyTo, mentions: Mentions.find(in: text, candidates: candidates))
        let size = ConversationCipher.plaintextSize(of: content)
        guard size <= Limits.maxMessagePlaintextBytes else {
            throw StoreError.invalidInput(
                "the message with its reply and mentions takes \(size) bytes; the limit is "
                    + "\(Limits.maxMessagePlaintextBytes) — shorten it by \(size - Limits.maxMessagePlaintextBytes)")
        }
        return content
    }

    /// Refuses a reference to anything but a message held in `conversation` that is still
    /// there (not deleted for everyone). `action` says what was being done ("reply to").
    func requireMessage(_ ref: MessageRef, in conversation: ConversationID, for action: String, db: Database) throws {
        try requireConversation(conversation, db: db)
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT deletedAt FROM message WHERE conversationId = ? AND author = ? AND seq = ?",
                arguments: [conversation.bytes, ref.author.bytes, ref.seq])
        else {
            throw StoreError.invalidInput(
                "there is no message \(ref.author.shortHex)/\(ref.seq) in this conversation to \(action) "
                    + "(history --json shows each message's id)")
        }
        guard (row["deletedAt"] as Int64?) == nil else {
            throw StoreError.invalidInput("that message was deleted for everyone; there is nothing to \(action)")
        }
    }
}
