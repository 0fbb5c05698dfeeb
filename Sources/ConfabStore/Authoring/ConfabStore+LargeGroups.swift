import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

/// Writing in a large group's membership (Protocol.md §19): the create wraps its key to at
/// most 512 participants and adds bring in the rest; an add derives its key from the one in
/// force and wraps it to the added keys alone; a removal or rekey wraps a fresh key to every
/// member after it. Only the creator changes the membership.
extension ConfabStore {
    /// The create of a large group of `members` (me first), and, past the first 512, the adds
    /// that bring in the rest: one transaction, so nobody sees half the group.
    func authorLargeGroup(
        members: [NodeID], title: String?, db: Database, now: Date
    ) throws -> ConversationID {
        let first = Array(members.prefix(Limits.maxLargeGroupChange))
        let (nonce, id, key, commitment) = ConversationGenesis.make(creator: me)
        let wrapped = try LargeGroupCipher.wrap(
            key, to: first, conversationID: id, author: me, seq: 1, keys: try sealingKeys(for: first, db: db))
        let sealedNames = try MembershipCipher.sealNames(
            try memberNames(first, db: db), key: key, conversationID: id, author: me, seq: 1)
        let create = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: now.millisecondsSince1970, clock: VectorClock(),
                body: .create(
                    CreateBody(
                        participants: first.map { CreateBody.Participant(id: $0, sealedKey: []) },
                        sealedTitle: try ConversationCipher.sealTitle(title ?? "", key: key, conversationID: id),
                        nonce: nonce, keyCommitment: commitment, sealedNames: sealedNames, wrapped: wrapped))),
            with: identity)
        let context = BatchContext(store: self, now: now)
        try insertAuthored(create, db: db, now: now, context: context)
        try finish(context, db: db)
        var rest = members.dropFirst(first.count)
        while !rest.isEmpty {
            let batch = Array(rest.prefix(Limits.maxLargeGroupChange))
            rest = rest.dropFirst(batch.count)
            _ = try authorLargeGroupEpoch(in: id, add: batch, remove: [], db: db, now: now)
        }
        return id
    }

    /// A members entry of a large group that I created: an add derives the next key from the
    /// one in force and wraps it to the added keys; anything else wraps a fresh key to every
    /// member after it. Its clock names whom it removes and whose leaves I hold that my
    /// view would not otherwise see, so the fresh key is not wrapped to them.
    func authorLargeGroupEpoch(
        in conversation: ConversationID, add: [NodeID], remove: [NodeID], db: Database, now: Date
    ) throws -> Entry {
        guard let log = try membershipLog(conversation, db: db), log.isLarge else {
            throw StoreError.unknownConversation(conversation.hex)
        }
        guard log.current.admin == me else {
            throw StoreError.invalidInput(
                "only the creator of a large group adds or removes its members; you can leave it (confab leave)")
        }
        let heads = try Self.heads(of: conversation, db: db)
        let membership = log.current
        let context = BatchContext(store: self, now: now)
        return try authorEntry(
            in: conversation,
            naming: { clock in
                var names = VectorClock()
                for key in remove { names[key] = heads[key] ?? 0 }
                let seen = log.view(clock)
                for change in log.changes where change.isLeave && seen.contains(change.person) {
                    names[change.author] = max(names[change.author], change.seq)
                }
                guard names.entries.count <= Limits.maxLargeGroupClockExtra else {
                    throw StoreError.invalidInput(
                        "too many members left or are removed at once (\(names.entries.count)); "
                            + "remove at most \(Limits.maxLargeGroupClockExtra) at a time")
                }
                return names
            }, db: db, now: now, context: context
        ) { seq in
            let change = MembershipEvent(
                author: me, seq: seq, order: DisplayOrderKey(clockSum: 0, timestamp: 0, author: me, seq: seq),
                add: add, remove: remove, recipients: nil, frontier: VectorClock())
            let derives = remove.isEmpty && !add.isEmpty
            let key: SecureBytes
            if derives {
                guard let epoch = membership.epochInForce,
                    let previous = try context.epochKey(conversation, epoch: epoch, db: db)
                else {
                    throw StoreError.invalidInput(
                        "the key of this group's current epoch did not open here; nobody can be added")
                }
                key = LargeGroupCipher.derivedKey(
                    from: SecureBytes(previous), conversationID: conversation, author: me, seq: seq)
            } else {
                key = ConversationCipher.generateKey()
            }
            let recipients = derives ? add : membership.members(after: change)
            let body = MembersBody(
                add: add, remove: remove,
                keyCommitment: MembershipCipher.epochCommitment(
                    key, conversationID: conversation, author: me, seq: seq),
                sealedNames: try MembershipCipher.sealNames(
                    try memberNames(derives ? [me] + add : recipients, db: db), key: key, conversationID: conversation,
                    author: me, seq: seq),
                wrapped: try LargeGroupCipher.wrap(
                    key, to: recipients, conversationID: conversation, author: me, seq: seq,
                    keys: try sealingKeys(for: recipients, db: db)))
            return (.members(body), nil)
        }
    }

    /// Every author's held seq in `conversation`.
    static func heads(of conversation: ConversationID, db: Database) throws -> [NodeID: UInt64] {
        var heads: [NodeID: UInt64] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT author, seq FROM head WHERE conversationId = ?"),
            arguments: [conversation.bytes])
        {
            heads[row.nodeID("author")] = row["seq"]
        }
        return heads
    }
}
