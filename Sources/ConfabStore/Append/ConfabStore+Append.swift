import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Validates and stores one entry received as bytes. Idempotent: an entry already held
    /// returns `.duplicate`. Throws `AppendRejection` for anything invalid, having written
    /// nothing.
    @discardableResult
    public func append(_ bytes: [UInt8], now: Date = Date()) throws -> AppendOutcome {
        let entry = try Self.decode(bytes).get()
        return try writer.write { db in
            let context = BatchContext()
            let outcome = try self.insert(entry, raw: bytes, db: db, now: now, context: context)
            try context.flush(db: db)
            return outcome
        }
    }

    /// Validates and stores a batch in one transaction (the sync path). Signature checks run
    /// before the transaction, on every core, so the write lock is held only for the inserts. Entries are
    /// applied in the given order, so a batch may carry a create entry and what follows it.
    public func append(batch: [[UInt8]], now: Date = Date()) throws -> [Result<AppendOutcome, AppendRejection>] {
        let decoded = ParallelDecode.decode(batch, using: Self.decode)
        return try writer.write { db in
            let context = BatchContext()
            let results = try zip(decoded, batch).map { result, bytes -> Result<AppendOutcome, AppendRejection> in
                switch result {
                case .failure(let rejection):
                    return .failure(rejection)
                case .success(let entry):
                    // `insert` throws a rejection only before its first write, so a rejected
                    // entry leaves no trace without a savepoint per entry. Any other error is
                    // a database failure and rolls the whole batch back.
                    do {
                        return .success(try self.insert(entry, raw: bytes, db: db, now: now, context: context))
                    } catch let rejection as AppendRejection {
                        return .failure(rejection)
                    }
                }
            }
            try context.flush(db: db)
            return results
        }
    }

    private static func decode(_ bytes: [UInt8]) -> Result<Entry, AppendRejection> {
        do throws(WireError) {
            return .success(try EntryCodec.decode(bytes))
        } catch {
            return .failure(.wire(error))
        }
    }

    /// The single place where entries enter the store, whether received or authored here.
    /// Every check comes before the first write: a rejection leaves nothing behind.
    func insert(_ entry: Entry, raw: [UInt8], db: Database, now: Date, context: BatchContext) throws -> AppendOutcome {
        let conversation = entry.conversationID.bytes
        let author = entry.author.bytes

        if let held = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT seq, hash FROM head WHERE conversationId = ? AND author = ?"),
            arguments: [conversation, author])
        {
            let headSeq: UInt64 = held["seq"]
            let headHash: [UInt8] = held["hash"]
            if entry.seq <= headSeq {
                // Held, or held once and deleted here: never take a different entry at the
                // same position (a fork), never bring back a deleted one.
                if let stored = try [UInt8].fetchOne(
                    db.cachedStatement(
                        sql: "SELECT hash FROM entry WHERE conversationId = ? AND author = ? AND seq = ?"),
                    arguments: [conversation, author, entry.seq])
                {
                    guard stored == entry.hash.bytes else { throw AppendRejection.fork }
                } else if entry.seq == headSeq, headHash != entry.hash.bytes {
                    throw AppendRejection.fork
                }
                return .duplicate
            }
            guard entry.seq == headSeq + 1 else { throw AppendRejection.gap(expected: headSeq + 1, got: entry.seq) }
            guard entry.previous?.bytes == headHash else { throw AppendRejection.brokenChain }
        } else {
            guard entry.seq == 1 else { throw AppendRejection.gap(expected: 1, got: entry.seq) }
        }

        let participants: [NodeID]
        if case .create(let create) = entry.body {
            if try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM conversation WHERE id = ?"), arguments: [conversation]) != nil
            {
                // Another author's seq 1 cannot be a second create for the same id.
                throw AppendRejection.fork
            }
            participants = create.participantIDs
        } else {
            participants = try context.participants(entry.conversationID, db: db)
            guard !participants.isEmpty else { throw AppendRejection.unknownConversation }
            guard participants.contains(entry.author) else { throw AppendRejection.notParticipant }
        }
        try validateClocks(entry, participants: participants)

        if case .create(let create) = entry.body {
            try insertConversation(entry, create: create, db: db)
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO entry(conversationId, author, seq, hash, kind, timestamp, clockSum, raw, receivedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            conversation, author, entry.seq, entry.hash.bytes, entry.kind.rawValue, entry.timestamp,
            entry.clock.sum, raw, now.millisecondsSince1970,
        ])
        try db.cachedStatement(
            sql: """
                INSERT INTO head(conversationId, author, seq, hash, frontier) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(conversationId, author) DO UPDATE
                SET seq = excluded.seq, hash = excluded.hash, frontier = excluded.frontier
                """
        ).execute(arguments: [conversation, author, entry.seq, entry.hash.bytes, entry.frontier.json])

        switch entry.body {
        case .message(let sealed):
            try insertMessage(entry, sealed: sealed, db: db, context: context)
        case .receipt(let delivered, let read):
            try mergeReceipt(
                conversation: entry.conversationID, from: entry.author,
                ReceiptClocks(delivered: delivered, read: read), db: db)
        case .create, .unknown:
            break
        }
        return .appended(entry)
    }

    /// Clocks may only name participants, and the causal clock must hold the author's own
    /// previous entry exactly (an author always has its own log).
    private func validateClocks(_ entry: Entry, participants: [NodeID]) throws {
        let members = Set(participants)
        guard entry.clock[entry.author] == entry.seq - 1 else {
            throw AppendRejection.badClock(
                "author's own seq is \(entry.clock[entry.author]), expected \(entry.seq - 1)")
        }
        var clocks = [entry.clock]
        if case .receipt(let delivered, let read) = entry.body { clocks += [delivered, read] }
        for clock in clocks {
            for author in clock.entries.keys where !members.contains(author) {
                throw AppendRejection.badClock("names \(author.shortHex), not a participant")
            }
        }
    }

    private func insertConversation(_ entry: Entry, create: CreateBody, db: Database) throws {
        var key: SecureBytes?
        var title: String?
        if let mine = create.participants.first(where: { $0.id == me }) {
            // A sealed key that does not open leaves the conversation unreadable here but
            // still replicable: the entry itself is validly signed.
            key = try? ConversationCipher.openKey(mine.sealedKey, with: identity)
            if let key {
                title = try? ConversationCipher.openTitle(
                    create.sealedTitle, key: key, conversationID: entry.conversationID)
            }
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO conversation(id, creator, createdAt, conversationKey, title, lastActivityAt)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            entry.conversationID.bytes, entry.author.bytes, entry.timestamp, key?.unsafeCopy, title,
            entry.timestamp,
        ])
        for (position, participant) in create.participants.enumerated() {
            try db.cachedStatement(
                sql: "INSERT INTO participant(conversationId, nodeId, position) VALUES (?, ?, ?)"
            ).execute(arguments: [entry.conversationID.bytes, participant.id.bytes, position])
        }
        try refreshSearchIndex(conversation: entry.conversationID, db: db)
    }

    private func insertMessage(_ entry: Entry, sealed: [UInt8], db: Database, context: BatchContext) throws {
        guard let key = try context.key(entry.conversationID, db: db) else { return }  // a relay: raw entry only
        let text = try? ConversationCipher.openMessage(
            sealed, key: SecureBytes(key), conversationID: entry.conversationID, author: entry.author, seq: entry.seq)
        try db.cachedStatement(
            sql: """
                INSERT INTO message(conversationId, author, seq, timestamp, clockSum, text)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            entry.conversationID.bytes, entry.author.bytes, entry.seq, entry.timestamp, entry.clock.sum, text,
        ])
        if try !context.isBlocked(entry.author, db: db) {
            context.noteMessage(entry.conversationID, at: entry.timestamp)
        }
    }

    private func mergeReceipt(
        conversation: ConversationID, from node: NodeID, _ clocks: ReceiptClocks, db: Database
    ) throws {
        let current = try receiptClocks(conversation: conversation, node: node, db: db) ?? ReceiptClocks()
        let merged = current.merging(clocks)
        try db.cachedStatement(
            sql: """
                INSERT INTO receipt(conversationId, nodeId, delivered, read) VALUES (?, ?, ?, ?)
                ON CONFLICT(conversationId, nodeId) DO UPDATE SET delivered = excluded.delivered, read = excluded.read
                """
        ).execute(arguments: [conversation.bytes, node.bytes, merged.delivered.json, merged.read.json])
    }

    func receiptClocks(conversation: ConversationID, node: NodeID, db: Database) throws -> ReceiptClocks? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT delivered, read FROM receipt WHERE conversationId = ? AND nodeId = ?"),
                arguments: [conversation.bytes, node.bytes])
        else { return nil }
        return ReceiptClocks(
            delivered: try VectorClock(json: row["delivered"]), read: try VectorClock(json: row["read"]))
    }
}
