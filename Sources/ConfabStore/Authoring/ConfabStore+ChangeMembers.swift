import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Adds and removes members of `conversation` (Protocol.md §4.8): one members entry,
    /// starting a key epoch sealed to the members after the change. Any member adds; only
    /// the admin removes others. `shareHistory`: the added members also get the keys of the
    /// earlier epochs this node holds, so they can read what was written before.
    public func changeMembers(
        of conversation: ConversationID, add: [NodeID] = [], remove: [NodeID] = [], shareHistory: Bool = false,
        now: Date = Date()
    ) throws -> Entry {
        let add = add.uniqued()
        let remove = remove.uniqued()
        guard !add.isEmpty || !remove.isEmpty else { throw StoreError.invalidInput("nobody to add or remove") }
        return try write { db in
            let membership = try self.requireMembership(conversation, db: db)
            let names = try self.nameMap(conversation: conversation, db: db)
            func name(_ key: NodeID) -> String { names[key] ?? key.shortHex }
            if remove.contains(self.myPerson) {
                throw StoreError.invalidInput("to take yourself out of the conversation, leave it (confab leave)")
            }
            if let already = add.first(where: membership.contains) {
                throw StoreError.invalidInput("\(name(already)) is already a member")
            }
            // My machines are in every conversation my person is in (Protocol.md §20.11):
            // added as a member, one would be a second person of its own.
            if let own = add.first(where: { (try? self.myDevices(db: db).contains($0)) == true }) {
                throw StoreError.invalidInput(
                    "\(name(own)) is one of your own machines: it reads and writes in every conversation you are in")
            }
            if let absent = remove.first(where: { !membership.contains($0) }) {
                throw StoreError.invalidInput(
                    "\(name(absent)) is not a member; members: \(membership.members.map(name).joined(separator: ", "))")
            }
            if !remove.isEmpty, membership.admin != self.myPerson {
                throw StoreError.invalidInput(
                    "only the conversation's admin (\(membership.admin.map(name) ?? "nobody")) can remove members; "
                        + "you can leave it (confab leave)")
            }
            if !add.isEmpty, try Self.isProtocolOne(conversation, db: db) {
                throw StoreError.invalidInput(
                    "this conversation was started with Confab 0.1.0 and cannot take new members (a member added now "
                        + "could not check it); start a new one with them: confab new NAME…")
            }
            let log = try self.membershipLog(conversation, db: db)
            if let log, log.isLarge {
                if shareHistory {
                    throw StoreError.invalidInput(
                        "a large group shares no history: who is added reads from their add on")
                }
                if membership.members.count - remove.count + add.count > Limits.maxLargeGroupMembers {
                    throw StoreError.invalidInput("a group can have at most \(Limits.maxLargeGroupMembers) members")
                }
                return try self.authorLargeGroupEpoch(in: conversation, add: add, remove: remove, db: db, now: now)
            }
            if let log, log.everMembers.union(add).count > Limits.maxParticipants {
                throw StoreError.invalidInput(
                    "a conversation can have at most \(Limits.maxParticipants) different members over its life; "
                        + "a large group (confab new --large) takes up to \(Limits.maxLargeGroupMembers)")
            }
            let after = membership.members.filter { !remove.contains($0) } + add
            return try self.authorEpoch(
                in: conversation, members: after, add: add, remove: remove, shareHistory: shareHistory, db: db,
                now: now)
        }
    }

    /// Leaves `conversation`: a members entry that removes my own key and starts no epoch
    /// (the one leaving must not choose the next key; the next member to write rekeys).
    public func leave(_ conversation: ConversationID, now: Date = Date()) throws -> Entry {
        try write { db in
            _ = try self.requireMembership(conversation, db: db)
            return try self.authorEntry(
                in: conversation, body: .members(MembersBody(remove: [self.me])), db: db, now: now)
        }
    }

    /// The key my next sealed text is written under: the epoch in force for everything held
    /// (my next entry's view). After a leave or concurrent changes there is none, and a
    /// rekey to the current members is written first (§4.8.4).
    func sealingKey(in conversation: ConversationID, db: Database, now: Date) throws -> SecureBytes {
        let membership = try requireMembership(conversation, db: db)
        let epoch: EntryRef
        if membership.isLarge, membership.admin == me, let current = membership.epochInForce,
            let log = try membershipLog(conversation, db: db),
            log.epochs[current]?.contains(where: { !membership.contains($0) }) == true
        {
            // Someone left since the key in force was wrapped: only a fresh key, which only
            // the creator may choose in a large group, shuts them out (Protocol.md §19.4).
            let rekey = try authorLargeGroupEpoch(in: conversation, add: [], remove: [], db: db, now: now)
            epoch = EntryRef(author: rekey.author, seq: rekey.seq)
        } else if let current = membership.epochInForce {
            epoch = current
        } else {
            let rekey = try authorEpoch(
                in: conversation, members: membership.members, add: [], remove: [], shareHistory: false, db: db,
                now: now)
            epoch = EntryRef(author: rekey.author, seq: rekey.seq)
        }
        guard
            let key = try [UInt8].fetchOne(
                db.cachedStatement(
                    sql: "SELECT key FROM epoch_key WHERE conversationId = ? AND author = ? AND seq = ?"),
                arguments: [conversation.bytes, epoch.author.bytes, epoch.seq])
        else {
            throw StoreError.invalidInput(
                "the key of this conversation's current epoch did not open here; nothing can be written in it")
        }
        return SecureBytes(key)
    }

    /// The current membership; throws unless I am a member.
    func requireMembership(_ conversation: ConversationID, db: Database) throws -> Membership {
        guard let log = try self.membershipLog(conversation, db: db) else {
            throw StoreError.unknownConversation(conversation.hex)
        }
        let membership = log.current
        guard membership.contains(myPerson) else { throw StoreError.notAParticipant(conversation.hex) }
        return membership
    }

    /// A members entry that starts an epoch for `members`: a fresh key sealed to each, the
    /// names I know them by, and (when asked) earlier keys for the added ones.
    func authorEpoch(
        in conversation: ConversationID, members: [NodeID], add: [NodeID], remove: [NodeID], shareHistory: Bool,
        db: Database, now: Date
    ) throws -> Entry {
        let seq = try nextSeq(conversation, db: db)
        let sealingKeys = try sealingKeys(for: members, db: db)
        let epoch = try MembershipCipher.makeEpoch(
            for: members, conversationID: conversation, author: me, seq: seq, sealingKeys: sealingKeys)
        let sealedNames = try MembershipCipher.sealNames(
            try memberNames(members, db: db), key: epoch.key, conversationID: conversation, author: me, seq: seq)
        var history: [MembersBody.SharedHistory] = []
        if shareHistory {
            let keys = try heldEpochKeys(conversation, db: db)
            for member in add where !keys.isEmpty {
                history.append(
                    .init(member: member, sealed: try MembershipCipher.sealHistory(keys, to: member, keys: sealingKeys))
                )
            }
        }
        return try authorEntry(
            in: conversation,
            body: .members(
                MembersBody(
                    add: add, remove: remove, keys: epoch.keys, keyCommitment: epoch.commitment,
                    sealedNames: sealedNames,
                    history: history)), db: db, now: now)
    }

    /// The names members go by, as far as this node knows them from the members themselves:
    /// my own, and each other member's claim from its Hello (never a name I gave a key by
    /// hand, nor the key-prefix stand-in).
    func memberNames(_ members: [NodeID], db: Database) throws -> [(key: NodeID, name: String)] {
        var names: [(key: NodeID, name: String)] = []
        if let mine = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'displayName'"), !mine.isEmpty {
            // My name is my person's: a device is named by its person's list (§20.3), not here.
            names.append((myPerson, mine))
        }
        for member in members where member != me && member != myPerson {
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT name, claimedName, addedByHand FROM peer WHERE id = ?", arguments: [member.bytes]),
                !(row["addedByHand"] as Bool)
            else { continue }
            let name: String = row["claimedName"] ?? row["name"]
            if name != member.shortHex { names.append((member, name)) }
        }
        return names
    }

    /// Every epoch key held of the conversation, oldest epoch first (display order).
    private func heldEpochKeys(
        _ conversation: ConversationID, db: Database
    ) throws -> [(epoch: EntryRef, key: SecureBytes)] {
        guard let log = try self.membershipLog(conversation, db: db) else { return [] }
        var keys: [(epoch: EntryRef, key: SecureBytes)] = []
        for event in [log.create] + log.changes where event.recipients != nil {
            if let key = try [UInt8].fetchOne(
                db, sql: "SELECT key FROM epoch_key WHERE conversationId = ? AND author = ? AND seq = ?",
                arguments: [conversation.bytes, event.author.bytes, event.seq])
            {
                keys.append((event.ref, SecureBytes(key)))
            }
        }
        return keys
    }

    /// Whether the conversation's create is of protocol 1 (Protocol.md §4.9).
    static func isProtocolOne(_ conversation: ConversationID, db: Database) throws -> Bool {
        guard
            let raw = try [UInt8].fetchOne(
                db,
                sql: """
                    SELECT e.raw FROM entry e JOIN conversation c ON c.id = e.conversationId
                    WHERE e.conversationId = ? AND e.author = c.creator AND e.seq = 1
                    """,
                arguments: [conversation.bytes]),
            let create = try? EntryCodec.decodeUnverified(raw), case .create(let body) = create.body
        else { return false }
        return body.isLegacy
    }
}
