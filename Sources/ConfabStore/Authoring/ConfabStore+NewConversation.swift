import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Starts a conversation with `others` (and me), optionally titled, optionally with a
    /// first message; everything is written in one transaction and queued for sending.
    public func createConversation(
        with others: [NodeID], title: String? = nil, firstMessage: String? = nil, now: Date = Date()
    ) throws -> (id: ConversationID, message: Entry?) {
        let members = [me] + others.filter { $0 != me }.uniqued()
        guard members.count >= 2 else {
            throw StoreError.invalidInput("a conversation needs at least one other person")
        }
        guard members.count <= Limits.maxParticipants else {
            throw StoreError.invalidInput("a conversation can have at most \(Limits.maxParticipants) participants")
        }
        let title = title?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let title, title.utf8.count > Limits.maxTitleBytes {
            throw StoreError.invalidInput("the title is longer than \(Limits.maxTitleBytes) bytes")
        }
        if let firstMessage { try Self.checkText(firstMessage) }

        let message = try write { db -> (ConversationID, Entry?) in
            let id = try self.authorCreate(members: members, title: title, db: db, now: now)
            guard let firstMessage else { return (id, nil) }
            return (id, try self.authorMessage(firstMessage, in: id, db: db, now: now).entry)
        }
        return (message.0, message.1)
    }

    /// Writes the create entry of a new conversation of `members` (me first), dated `now`.
    func authorCreate(members: [NodeID], title: String?, db: Database, now: Date) throws -> ConversationID {
        let (nonce, id, key, commitment) = ConversationGenesis.make(creator: me)
        let participants = try members.map { member in
            CreateBody.Participant(id: member, sealedKey: try ConversationCipher.sealKey(key, to: member))
        }
        let sealedTitle = try ConversationCipher.sealTitle(title ?? "", key: key, conversationID: id)
        let sealedNames = try MembershipCipher.sealNames(
            try memberNames(members, db: db), key: key, conversationID: id, author: me, seq: 1)
        let create = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: now.millisecondsSince1970,
                clock: VectorClock(),
                body: .create(
                    CreateBody(
                        participants: participants, sealedTitle: sealedTitle, nonce: nonce,
                        keyCommitment: commitment, sealedNames: sealedNames))),
            with: identity)
        let context = BatchContext(store: self, now: now)
        try insertAuthored(create, db: db, now: now, context: context)
        try finish(context, db: db)
        return id
    }
}
