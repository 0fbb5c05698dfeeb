import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// A members entry (Protocol.md §4.8): the membership fold of everything held is
    /// computed again and stored; this node keeps its key of the new epoch, the names it
    /// carries, and any earlier keys shared with it, then reads what those keys open.
    func applyMembers(
        _ entry: Entry, _ body: MembersBody, person: NodeID, view: Membership?, db: Database, context: BatchContext
    ) throws {
        let conversation = entry.conversationID
        let event = MembershipEvent(entry: entry, members: body, view: view, person: person)
        try Self.insertMembershipEvent(event, conversation: conversation, db: db)
        guard var log = try context.membershipLog(conversation, db: db) else { return }
        let wasMember = log.current.contains(myPerson)
        log.insert(event)
        let membership = log.current
        try Self.storeMembership(membership, of: conversation, db: db)
        context.noteMembership(log, of: conversation)

        let opened: SecureBytes??
        if let wrapped = body.wrapped {
            opened = try largeGroupKey(
                entry, body, wrapped: wrapped, event: event, view: view, db: db, context: context)
        } else if let mine = body.keys.first(where: { $0.id == myPerson }) {
            opened = .some(
                ConversationCipher.openKey(mine.sealedKey, with: try openingKeys(db: db)).flatMap { key in
                    MembershipCipher.epochCommitment(
                        key, conversationID: conversation, author: entry.author, seq: entry.seq)
                        == body.keyCommitment ? key : nil
                })
        } else {
            opened = nil
        }
        if let opened {
            if let opened {
                try storeEpochKey(
                    opened.unsafeCopy, conversation: conversation, epoch: event.ref, db: db, context: context)
                try learnNames(
                    MembershipCipher.openNames(
                        body.sealedNames, key: opened, conversationID: conversation, author: entry.author,
                        seq: entry.seq), db: db)
            } else {
                // As for the create's key (§4.5): the epoch is unreadable here, and says so.
                try db.execute(
                    sql: "UPDATE conversation SET keyProblem = 1 WHERE id = ?", arguments: [conversation.bytes])
            }
        }
        if let shared = body.history.first(where: { $0.member == myPerson }),
            try learnSharedHistory(shared.sealed, conversation: conversation, log: log, db: db, context: context) > 0
        {
            try readAgain(conversation, db: db, context: context)
        }
        // Joining brings the conversation to the top of the list, like a first message.
        if !wasMember, membership.contains(myPerson) { context.noteMessage(conversation, at: entry.timestamp) }
        try refreshSearchIndex(conversation: conversation, db: db)
    }

    /// My key of a large group's epoch (Protocol.md §19.3): `nil` when the epoch is not mine
    /// to read, `.some(nil)` when it should be and does not open. An add's key comes from the
    /// key in force before it, or from my wrap when it adds me; a fresh key from my wrap among
    /// the members after the change.
    private func largeGroupKey(
        _ entry: Entry, _ body: MembersBody, wrapped: WrappedKeys, event: MembershipEvent, view: Membership?,
        db: Database, context: BatchContext
    ) throws -> SecureBytes?? {
        let commitment = { (key: SecureBytes) in
            MembershipCipher.epochCommitment(
                key, conversationID: entry.conversationID, author: entry.author, seq: entry.seq)
        }
        let recipients = body.derivesKey ? body.add : event.recipients ?? []
        if let index = recipients.firstIndex(of: myPerson) {
            return .some(
                LargeGroupCipher.open(
                    wrapped, index: index, with: try openingKeys(db: db), commitment: commitment,
                    expected: body.keyCommitment,
                    conversationID: entry.conversationID, author: entry.author, seq: entry.seq))
        }
        guard body.derivesKey, let previous = view?.epochInForce,
            let held = try context.epochKey(entry.conversationID, epoch: previous, db: db)
        else { return nil }
        let key = LargeGroupCipher.derivedKey(
            from: SecureBytes(held), conversationID: entry.conversationID, author: entry.author, seq: entry.seq)
        return .some(commitment(key) == body.keyCommitment ? key : nil)
    }

    func storeEpochKey(
        _ key: [UInt8], conversation: ConversationID, epoch: EntryRef, db: Database, context: BatchContext
    ) throws {
        try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO epoch_key(conversationId, author, seq, key) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [conversation.bytes, epoch.author.bytes, epoch.seq, key])
        context.noteEpochKey(key, conversation: conversation, epoch: epoch)
    }

    /// Keeps each shared key that matches its epoch's commitment: the sharer's word is a
    /// claim, the commitment in the epoch's own signed entry is not. Returns how many.
    private func learnSharedHistory(
        _ sealed: [UInt8], conversation: ConversationID, log: MembershipLog, db: Database, context: BatchContext
    ) throws -> Int {
        var learned = 0
        for (epoch, key) in MembershipCipher.openHistory(sealed, with: try openingKeys(db: db))
        where log.epochs[epoch] != nil {
            guard try context.epochKey(conversation, epoch: epoch, db: db) == nil,
                let raw = try [UInt8].fetchOne(
                    db.cachedStatement(
                        sql: "SELECT raw FROM entry WHERE conversationId = ? AND author = ? AND seq = ?"),
                    arguments: [conversation.bytes, epoch.author.bytes, epoch.seq]),
                // Stored: authenticated when it arrived, perhaps by a later entry's signature
                // (Protocol.md §7 step 3), so its own is not checked again.
                let held = try? EntryCodec.decodeUnverified(raw)
            else { continue }
            let matches: Bool
            switch held.body {
            case .create(let create):
                // A protocol 1 create committed to no key: nothing shared for it is taken (it
                // takes no new members, Protocol.md §4.9).
                matches = ConversationGenesis.keyCommitment(key, conversationID: conversation) == create.keyCommitment
                if matches {
                    try db.execute(
                        sql: "UPDATE conversation SET conversationKey = ?, title = ? WHERE id = ?",
                        arguments: [
                            key.unsafeCopy,
                            try? ConversationCipher.openTitle(
                                create.sealedTitle, key: key, conversationID: conversation),
                            conversation.bytes,
                        ])
                }
            case .members(let members):
                matches =
                    MembershipCipher.epochCommitment(
                        key, conversationID: conversation, author: epoch.author, seq: epoch.seq)
                    == members.keyCommitment
            default:
                matches = false
            }
            guard matches else { continue }
            try storeEpochKey(key.unsafeCopy, conversation: conversation, epoch: epoch, db: db, context: context)
            learned += 1
        }
        return learned
    }

    /// Messages, edits, deletions, reactions and files held but unread for want of a key, taken
    /// again now that more keys are held: in display order, which follows causal order, so
    /// a message comes before its edits and before the reactions and replies of others
    /// that name it. Edits and reactions are taken again whole; both keep only what an
    /// author's higher seq decides, so taking one twice changes nothing.
    private func readAgain(_ conversation: ConversationID, db: Database, context: BatchContext) throws {
        guard let log = try context.membershipLog(conversation, db: db) else { return }
        let kinds = [EntryKind.message, .edit, .unsend, .react, .file].map(\.rawValue)
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT e.raw, e.clockSum FROM entry e
                WHERE e.conversationId = ? AND e.kind IN (\(kinds.map(String.init).joined(separator: ",")))
                AND NOT EXISTS (
                    SELECT 1 FROM message m WHERE m.conversationId = e.conversationId AND m.author = e.author
                    AND m.seq = e.seq)
                ORDER BY e.clockSum, e.author, e.seq
                """, arguments: [conversation.bytes])
        {
            // Stored, so authenticated on arrival (its own signature is not checked again).
            guard let entry = try? EntryCodec.decodeUnverified(row["raw"]) else { continue }
            let epoch = log.view(entry.clock).epochInForce
            switch entry.body {
            case .message(let sealed):
                try insertMessage(
                    entry, sealed: sealed, clockSum: row["clockSum"], epoch: epoch, db: db, context: context)
            case .edit(let target, let sealed):
                try applyEdit(entry, target: target, sealed: sealed, epoch: epoch, db: db, context: context)
            case .unsend(let target):
                try applyUnsend(entry, target: target, db: db)
            case .react(let sealed):
                try applyReaction(entry, sealed: sealed, epoch: epoch, db: db, context: context)
            case .file(let file):
                try insertFileMessage(
                    entry, file: file, clockSum: row["clockSum"], epoch: epoch, db: db, context: context)
            default:
                break
            }
        }
    }

    /// Names members go by, as another member knows them (§4.8.6): a claim, used only for a
    /// key never seen here, cleaned and checked for collisions exactly as a Hello's name.
    func learnNames(_ names: [(key: NodeID, name: String)], db: Database) throws {
        for (key, claimed) in names where key != me {
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM peer WHERE id = ?", arguments: [key.bytes]) == nil else {
                continue
            }
            let naming = try nameForNewKey(key, claiming: claimed, db: db)
            try db.execute(
                sql: "INSERT INTO peer(id, name, nameSkeleton, addedAt, claimedName) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    key.bytes, naming.name, NameSkeleton.of(naming.name), Date().millisecondsSince1970, naming.claimed,
                ])
            try refreshSearchIndex(conversationsOf: key, db: db)
        }
    }
}
