import ConfabCrypto
import ConfabModel
import ConfabWire
import GRDB

extension ConfabStore {
    /// A create entry: the conversation, its participants in the creator's order, and my
    /// copy of its key when I am one of them.
    func insertConversation(_ entry: Entry, create: CreateBody, db: Database, context: BatchContext) throws {
        var key: SecureBytes?
        var title: String?
        var keyProblem = false
        if let index = create.participants.firstIndex(where: { $0.id == myPerson }) {
            // A sealed key that does not open, or is not the key the creator committed to
            // (so other members may hold another one), leaves the conversation unreadable
            // here and says so, but still replicable: the entry itself is validly signed.
            let sealedToMe =
                if let wrapped = create.wrapped {
                    LargeGroupCipher.open(
                        wrapped, index: index, with: try openingKeys(db: db),
                        commitment: { ConversationGenesis.keyCommitment($0, conversationID: entry.conversationID) },
                        expected: create.keyCommitment, conversationID: entry.conversationID, author: entry.author,
                        seq: entry.seq)
                } else {
                    ConversationCipher.openKey(create.participants[index].sealedKey, with: try openingKeys(db: db))
                }
            // A linked device was given the keys its person held (Protocol.md §20.10) before
            // the entries that sealed them to the person's own key arrive.
            let opened =
                try sealedToMe
                ?? context.epochKey(entry.conversationID, epoch: EntryRef(author: entry.author, seq: 1), db: db)
                .map { SecureBytes($0) }
            // A protocol 1 create committed to no key: the one sealed to me is the key.
            if let opened,
                create.isLegacy
                    || ConversationGenesis.keyCommitment(opened, conversationID: entry.conversationID)
                        == create.keyCommitment
            {
                key = opened
                title = try? ConversationCipher.openTitle(
                    create.sealedTitle, key: opened, conversationID: entry.conversationID)
                try learnNames(
                    MembershipCipher.openNames(
                        create.sealedNames, key: opened, conversationID: entry.conversationID, author: entry.author,
                        seq: entry.seq), db: db)
            } else {
                keyProblem = true
            }
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO conversation(
                    id, creator, createdAt, conversationKey, title, lastActivityAt, keyProblem, large, personal, byDevice)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            entry.conversationID.bytes, entry.author.bytes, entry.timestamp, key?.unsafeCopy, title,
            entry.timestamp, keyProblem, create.isLarge, create.personal, !create.participantIDs.contains(entry.author),
        ])
        if create.isLarge { context.noteLarge(entry.conversationID) }
        for (position, participant) in create.participants.enumerated() {
            try db.cachedStatement(
                sql: "INSERT INTO participant(conversationId, nodeId, position) VALUES (?, ?, ?)"
            ).execute(arguments: [entry.conversationID.bytes, participant.id.bytes, position])
        }
        let event = MembershipEvent(create: entry, body: create)
        try Self.insertMembershipEvent(event, conversation: entry.conversationID, db: db)
        if let key {
            try storeEpochKey(
                key.unsafeCopy, conversation: entry.conversationID, epoch: event.ref, db: db, context: context)
        }
        try refreshSearchIndex(conversation: entry.conversationID, db: db)
    }
}
