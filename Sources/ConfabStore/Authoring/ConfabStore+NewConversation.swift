import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Starts a conversation with `others` (and me), optionally titled, optionally with a
    /// first message; everything is written in one transaction and queued for sending.
    /// `large`: a large group (Protocol.md §19), which one of more than 64 members always is.
    public func createConversation(
        with others: [NodeID], title: String? = nil, firstMessage: String? = nil, large: Bool = false,
        now: Date = Date()
    ) throws -> (id: ConversationID, message: Entry?) {
        if let removal = try myDeviceRemoval() { throw StoreError.deviceRemoved(removal) }
        // Members are persons: a linked device starts the conversation in its person's name,
        // the person first and itself no participant (Protocol.md §20.11). My other machines
        // are in it as I am.
        let mine = try myDevices()
        let members = [myPerson] + others.filter { !mine.contains($0) }.uniqued()
        guard members.count >= 2 else {
            throw StoreError.invalidInput(
                others.contains(where: { mine.contains($0) && $0 != me })
                    ? "those are your own machines, which are in every conversation you are in: "
                        + "a conversation needs at least one other person"
                    : "a conversation needs at least one other person")
        }
        guard members.count <= Limits.maxLargeGroupMembers else {
            throw StoreError.invalidInput("a group can have at most \(Limits.maxLargeGroupMembers) members")
        }
        // A large group's wraps are checked against its author (§19.3), so its creator is a
        // member itself: one made here would be this machine's, not its person's.
        if myPerson != me, large || members.count > Limits.maxParticipants {
            throw StoreError.invalidInput(
                "a group of more than \(Limits.maxParticipants) members is started on the machine that holds "
                    + "the person key (confab devices shows which); it appears here as soon as the two meet")
        }
        let title = title?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let title, title.utf8.count > Limits.maxTitleBytes {
            throw StoreError.invalidInput("the title is longer than \(Limits.maxTitleBytes) bytes")
        }
        if let firstMessage { try Self.checkText(firstMessage) }
        if large || members.count > Limits.maxParticipants {
            return try write { db in
                let id = try self.authorLargeGroup(members: members, title: title, db: db, now: now)
                guard let firstMessage else { return (id, nil) }
                return (id, try self.authorMessage(firstMessage, in: id, db: db, now: now).entry)
            }
        }

        // The keys sealed to each member before the write lock is taken: with 64 members
        // that is the create's whole cost.
        let genesis = try NewConversation(
            members: members, creator: me, title: title, sealingKeys: try sealingKeys(for: members))
        let message = try write { db -> Entry? in
            try self.authorCreate(genesis, db: db, now: now)
            guard let firstMessage else { return nil }
            return try self.authorMessage(firstMessage, in: genesis.id, db: db, now: now).entry
        }
        return (genesis.id, message)
    }

    /// What a create entry holds that needs no database: the id and key, sealed to each member.
    struct NewConversation {
        let members: [NodeID]
        let nonce: [UInt8]
        let id: ConversationID
        let key: SecureBytes
        let commitment: [UInt8]
        let participants: [CreateBody.Participant]
        let sealedTitle: [UInt8]

        /// `creator`: the key that signs the create, which its id derives from: the first
        /// member, or a device of the first member (Protocol.md §20.11).
        init(members: [NodeID], creator: NodeID, title: String?, sealingKeys: SealingKeys) throws {
            self.members = members
            (nonce, id, key, commitment) = ConversationGenesis.make(creator: creator)
            participants = try members.map { [key] member in
                CreateBody.Participant(
                    id: member, sealedKey: try ConversationCipher.sealKey(key, to: member, keys: sealingKeys))
            }
            sealedTitle = try ConversationCipher.sealTitle(title ?? "", key: key, conversationID: id)
        }
    }

    /// Writes the create entry of `genesis` (its members, my person first), dated `now`; `personal`:
    /// my person's personal conversation (Protocol.md §20.15).
    func authorCreate(_ genesis: NewConversation, personal: Bool = false, db: Database, now: Date) throws {
        let sealedNames = try MembershipCipher.sealNames(
            try memberNames(genesis.members, db: db), key: genesis.key, conversationID: genesis.id, author: me, seq: 1)
        let create = EntryCodec.sign(
            EntryDraft(
                conversationID: genesis.id, seq: 1, previous: nil, timestamp: now.millisecondsSince1970,
                clock: VectorClock(),
                body: .create(
                    CreateBody(
                        participants: genesis.participants, sealedTitle: genesis.sealedTitle, nonce: genesis.nonce,
                        keyCommitment: genesis.commitment, sealedNames: sealedNames, personal: personal))),
            with: identity)
        let context = BatchContext(store: self, now: now)
        try insertAuthored(create, db: db, now: now, context: context)
        try finish(context, db: db)
    }
}
