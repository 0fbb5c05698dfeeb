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

        let (nonce, id, key, commitment) = ConversationGenesis.make(creator: me)
        let participants = try members.map { member in
            CreateBody.Participant(id: member, sealedKey: try ConversationCipher.sealKey(key, to: member))
        }
        let sealedTitle = try ConversationCipher.sealTitle(title ?? "", key: key, conversationID: id)
        let create = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: now.millisecondsSince1970, clock: VectorClock(),
                body: .create(
                    CreateBody(
                        participants: participants, sealedTitle: sealedTitle, nonce: nonce, keyCommitment: commitment))),
            with: identity)
        let message = try writer.write { db -> Entry? in
            try self.insertAuthored(create, db: db, now: now)
            guard let firstMessage else { return nil }
            return try self.authorMessage(firstMessage, in: id, db: db, now: now)
        }
        return (id, message)
    }

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

    /// Records that I have read everything held in the conversation: moves my read marks
    /// and, when that covers anything new from others, appends a coalesced receipt entry.
    @discardableResult
    public func markRead(_ conversation: ConversationID, now: Date = Date()) throws -> Entry? {
        try writer.write { db in
            try db.cachedStatement(
                sql: "UPDATE local_state SET markedUnread = 0 WHERE conversationId = ?"
            ).execute(arguments: [conversation.bytes])
            var others = try self.clock(of: conversation, db: db)
            others[self.me] = 0
            for (author, seq) in others.entries {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO read_mark(conversationId, author, seq) VALUES (?, ?, ?)
                        ON CONFLICT(conversationId, author) DO UPDATE SET seq = max(seq, excluded.seq)
                        """
                ).execute(arguments: [conversation.bytes, author.bytes, seq])
            }
            return try self.receiptIfNeeded(conversation, read: true, db: db, now: now)
        }
    }

    /// Called when others' entries have been stored: appends a coalesced delivered receipt
    /// when messages arrived that no receipt of mine covers yet.
    @discardableResult
    public func acknowledgeDelivery(_ conversation: ConversationID, now: Date = Date()) throws -> Entry? {
        try writer.write { db in try self.receiptIfNeeded(conversation, read: false, db: db, now: now) }
    }

    /// Receipts carry full clocks: delivered = everything of others I hold; read = my read
    /// marks (moved only by `markRead`).
    private func receiptIfNeeded(_ conversation: ConversationID, read: Bool, db: Database, now: Date) throws -> Entry? {
        guard try NodeID.fetchParticipants(db, conversation: conversation).contains(me) else { return nil }
        // Without the conversation's key nothing here was readable: saying "delivered" or
        // "read" would tell the senders a lie.
        guard
            try [UInt8].fetchOne(
                db.cachedStatement(sql: "SELECT conversationKey FROM conversation WHERE id = ?"),
                arguments: [conversation.bytes]) != nil
        else { return nil }
        var others = try self.clock(of: conversation, db: db)
        others[self.me] = 0
        let previous = try self.receiptClocks(conversation: conversation, node: self.me, db: db) ?? ReceiptClocks()
        let baseline = read ? previous.read : previous.delivered
        // Only messages call for a receipt: answering receipts too would have two open
        // chats acknowledge each other's acknowledgements forever.
        let unacknowledged = try others.entries.contains { author, seq in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT 1 FROM entry WHERE conversationId = ? AND author = ? AND kind = ? AND seq > ? AND seq <= ?
                        """),
                arguments: [conversation.bytes, author.bytes, EntryKind.message.rawValue, baseline[author], seq]) != nil
        }
        guard unacknowledged else { return nil }
        var readClock = previous.read
        if read {
            readClock = others
        }
        return try authorEntry(
            in: conversation, body: .receipt(delivered: others.merging(previous.delivered), read: readClock), db: db,
            now: now)
    }

    private func authorMessage(_ text: String, in conversation: ConversationID, db: Database, now: Date) throws -> Entry
    {
        guard
            let keyBytes = try [UInt8].fetchOne(
                db.cachedStatement(sql: "SELECT conversationKey FROM conversation WHERE id = ?"),
                arguments: [conversation.bytes])
        else {
            throw StoreError.unknownConversation(conversation.hex)
        }
        let seq = try nextSeq(conversation, db: db)
        let sealed = try ConversationCipher.sealMessage(
            text, key: SecureBytes(keyBytes), conversationID: conversation, author: me, seq: seq)
        return try authorEntry(in: conversation, body: .message(sealed: sealed), db: db, now: now)
    }

    private func authorEntry(in conversation: ConversationID, body: EntryBody, db: Database, now: Date) throws -> Entry
    {
        let participants = try NodeID.fetchParticipants(db, conversation: conversation)
        guard !participants.isEmpty else { throw StoreError.unknownConversation(conversation.hex) }
        guard participants.contains(me) else { throw StoreError.notAParticipant(conversation.hex) }
        let seq = try nextSeq(conversation, db: db)
        let previous = try [UInt8].fetchOne(
            db.cachedStatement(sql: "SELECT hash FROM head WHERE conversationId = ? AND author = ?"),
            arguments: [conversation.bytes, me.bytes]
        ).flatMap { EntryHash(bytes: $0) }
        let entry = EntryCodec.sign(
            EntryDraft(
                conversationID: conversation, seq: seq, previous: previous, timestamp: now.millisecondsSince1970,
                clock: try causalClock(for: conversation, nextSeq: seq, db: db), body: body),
            with: identity)
        try insertAuthored(entry, db: db, now: now)
        return entry
    }

    /// Authored entries go through the same validation as received ones, then the outbox.
    private func insertAuthored(_ entry: Entry, db: Database, now: Date) throws {
        let context = BatchContext(now: now)
        _ = try insert(entry, raw: EntryCodec.encode(entry), db: db, now: now, context: context)
        try context.flush(db: db)
        try db.cachedStatement(
            sql: "INSERT INTO outbox(conversationId, author, seq, queuedAt) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [entry.conversationID.bytes, me.bytes, entry.seq, now.millisecondsSince1970])
        try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO local_state(conversationId) VALUES (?)"
        ).execute(arguments: [entry.conversationID.bytes])
    }

    /// The clock a new entry of mine carries: everything I hold *and* everything the authors
    /// of what I hold had seen. An answer to a question then covers the question's own causal
    /// past, so it sorts after the question on every node (Protocol.md §6). Entries are
    /// stored only once what their clocks name is held (§7), so each component is at most
    /// what I hold; the cap keeps that true for stores written before that rule.
    ///
    /// My own log's position comes from my store and from entries signed by me that came
    /// back from peers, never from anyone's clock: if such an entry shows my log further
    /// along than my store (a key restored onto an empty store), writing now would fork it,
    /// so it is refused until the missing entries arrive.
    private func causalClock(for conversation: ConversationID, nextSeq seq: UInt64, db: Database) throws -> VectorClock
    {
        var held: [NodeID: UInt64] = [:]
        var merged = VectorClock()
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT author, seq, frontier FROM head WHERE conversationId = ?"),
            arguments: [conversation.bytes])
        {
            held[row.nodeID("author")] = row["seq"]
            merged.merge(try VectorClock(json: row["frontier"]))
        }
        var clock = VectorClock()
        for (author, seq) in merged.sortedEntries where author != me {
            let capped = min(seq, held[author] ?? 0)
            if capped > 0 { clock[author] = capped }
        }
        let known =
            try UInt64.fetchOne(
                db.cachedStatement(sql: "SELECT seq FROM own_log_evidence WHERE conversationId = ?"),
                arguments: [conversation.bytes]) ?? 0
        guard known <= seq - 1 else {
            throw StoreError.ownLogBehind(conversation: conversation.hex, held: seq - 1, known: known)
        }
        clock[me] = seq - 1
        return clock
    }

    private func nextSeq(_ conversation: ConversationID, db: Database) throws -> UInt64 {
        let head = try UInt64.fetchOne(
            db.cachedStatement(sql: "SELECT seq FROM head WHERE conversationId = ? AND author = ?"),
            arguments: [conversation.bytes, me.bytes])
        return (head ?? 0) + 1
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

extension Array where Element: Hashable {
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

extension ConfabStore {
    /// The key of a conversation this node can read; internal (tests sign entries with it).
    func conversationKey(_ conversation: ConversationID) throws -> [UInt8]? {
        try writer.read { db in
            try [UInt8].fetchOne(
                db.cachedStatement(sql: "SELECT conversationKey FROM conversation WHERE id = ?"),
                arguments: [conversation.bytes])
        }
    }
}
