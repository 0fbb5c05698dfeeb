import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Validates and stores one entry received as bytes. Idempotent: an entry already held
    /// returns `.duplicate`. Throws `AppendRejection` for anything invalid, having written
    /// nothing but, for a fork, its proof.
    @discardableResult
    public func append(_ bytes: [UInt8], now: Date = Date(), keepsOthers: Bool = false) throws -> AppendOutcome {
        guard let outcome = try append(batch: [bytes], now: now, keepsOthers: keepsOthers).first else {
            preconditionFailure("one result per entry")
        }
        return try outcome.get()
    }

    /// Validates and stores a batch in one transaction (the sync path). Signature checks run
    /// before the transaction, on every core, so the write lock is held only for the inserts. Entries are
    /// applied in the given order, so a batch may carry a create entry and what follows it.
    /// `keepsOthers`: a relay keeps conversations it is not a participant of; a person's
    /// node refuses them.
    public func append(
        batch: [[UInt8]], now: Date = Date(), keepsOthers: Bool = false
    ) throws -> [Result<AppendOutcome, AppendRejection>] {
        let decoded = ParallelDecode.decode(batch, using: Self.decode)
        return try writer.write { db in
            let context = BatchContext(keepsOthers: keepsOthers, now: now)
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
                        try self.keepEvidence(of: rejection, entry: entry, db: db, now: now, context: context)
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

    /// What a rejection proves is kept: a fork proof against its author, and an entry of
    /// my own that I do not hold yet (signed by me, so my log really is that long: I must
    /// not write at those seqs until it arrives).
    private func keepEvidence(
        of rejection: AppendRejection, entry: Entry, db: Database, now: Date, context: BatchContext
    ) throws {
        if let proof = rejection.proof {
            _ = try insertForkProof(proof, db: db, now: now)
            context.noteForked(proof.conversation, author: proof.author)
        }
        if rejection.category == .gap, entry.author == me {
            try db.cachedStatement(
                sql: """
                    INSERT INTO own_log_evidence(conversationId, seq) VALUES (?, ?)
                    ON CONFLICT(conversationId) DO UPDATE SET seq = max(seq, excluded.seq)
                    """
            ).execute(arguments: [entry.conversationID.bytes, entry.seq])
        }
    }

    /// The single place where entries enter the store, whether received or authored here.
    /// Every check comes before the first write: a rejection leaves nothing behind.
    func insert(_ entry: Entry, raw: [UInt8], db: Database, now: Date, context: BatchContext) throws -> AppendOutcome {
        let conversation = entry.conversationID.bytes
        let author = entry.author.bytes

        if let held = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT seq, hash, frontier FROM head WHERE conversationId = ? AND author = ?"),
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
                    guard stored == entry.hash.bytes else {
                        throw AppendRejection.fork(
                            proof: try heldRaw(entry.conversationID, author: entry.author, seq: entry.seq, db: db).map {
                                ForkProof(
                                    conversation: entry.conversationID, author: entry.author, seq: entry.seq,
                                    first: $0, second: raw)
                            })
                    }
                } else if entry.seq == headSeq, headHash != entry.hash.bytes {
                    throw AppendRejection.fork(proof: nil)
                }
                return .duplicate
            }
            guard try !context.forkedAuthors(entry.conversationID, db: db).contains(entry.author) else {
                throw AppendRejection.forkedAuthor
            }
            guard entry.seq == headSeq + 1 else { throw AppendRejection.gap(expected: headSeq + 1, got: entry.seq) }
            guard entry.previous?.bytes == headHash else {
                // The author signed both its held entry and this one, which names another
                // predecessor: two branches of one log.
                let previous = try heldRaw(entry.conversationID, author: entry.author, seq: headSeq, db: db)
                throw AppendRejection.brokenChain(
                    proof: previous.map {
                        ForkProof(
                            conversation: entry.conversationID, author: entry.author, seq: headSeq, first: $0,
                            second: raw)
                    })
            }
            // Clocks only grow: an author's entry covers what its previous entry had seen
            // (Protocol.md §7 step 4), so nobody can sort a new message above older ones.
            let previousFrontier = try VectorClock(json: held["frontier"])
            guard entry.clock.covers(previousFrontier) else {
                throw AppendRejection.badClock("does not cover the author's previous entry", intrinsic: false)
            }
        } else {
            // A proof can arrive (ForkProof) before any entry of its author is held here.
            guard try !context.forkedAuthors(entry.conversationID, db: db).contains(entry.author) else {
                throw AppendRejection.forkedAuthor
            }
            guard entry.seq == 1 else { throw AppendRejection.gap(expected: 1, got: entry.seq) }
        }

        let participants: [NodeID]
        if case .create(let create) = entry.body {
            if try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM conversation WHERE id = ?"), arguments: [conversation]) != nil
            {
                // Ids are derived from the creator's key, so only the creator can have made
                // a second create; its head above caught that already.
                throw AppendRejection.fork(proof: nil)
            }
            participants = create.participantIDs
            guard context.keepsOthers || participants.contains(me) else { throw AppendRejection.notMember }
        } else {
            participants = try context.participants(entry.conversationID, db: db)
            guard !participants.isEmpty else { throw AppendRejection.unknownConversation }
            guard participants.contains(entry.author) else { throw AppendRejection.notParticipant }
        }
        try validateClocks(entry, participants: participants, heads: context.heads(entry.conversationID, db: db))

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
        context.noteHead(entry.conversationID, author: entry.author, seq: entry.seq)

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

    private func heldRaw(_ conversation: ConversationID, author: NodeID, seq: UInt64, db: Database) throws -> [UInt8]? {
        try [UInt8].fetchOne(
            db.cachedStatement(sql: "SELECT raw FROM entry WHERE conversationId = ? AND author = ? AND seq = ?"),
            arguments: [conversation.bytes, author.bytes, seq])
    }

    /// Clocks may only name participants; the causal clock must hold the author's own
    /// previous entry exactly (an author always has its own log); a receipt cannot cover
    /// what its author had not seen when writing it; and every other entry the causal
    /// clock names must be held here already. That last rule makes a clock a claim backed
    /// by signed entries: a made-up `{bob: 99}` is never stored, so it can neither stop
    /// Bob from writing, nor spread into anyone's clock, nor pin an entry to the end of the
    /// order (Protocol.md §7).
    private func validateClocks(_ entry: Entry, participants: [NodeID], heads: [NodeID: UInt64]) throws {
        let members = Set(participants)
        guard entry.clock[entry.author] == entry.seq - 1 else {
            throw AppendRejection.badClock(
                "author's own seq is \(entry.clock[entry.author]), expected \(entry.seq - 1)")
        }
        var clocks = [entry.clock]
        if case .receipt(let delivered, let read) = entry.body {
            clocks += [delivered, read]
            guard entry.clock.covers(delivered), entry.clock.covers(read) else {
                throw AppendRejection.badClock("receipt covers entries its author had not seen")
            }
        }
        for clock in clocks {
            for author in clock.entries.keys where !members.contains(author) {
                throw AppendRejection.badClock("names \(author.shortHex), not a participant")
            }
        }
        for (author, seq) in entry.clock.sortedEntries where author != entry.author {
            let held = heads[author] ?? 0
            guard seq <= held else { throw AppendRejection.missingDependency(author, seq: seq, held: held) }
        }
    }

    private func insertConversation(_ entry: Entry, create: CreateBody, db: Database) throws {
        var key: SecureBytes?
        var title: String?
        var keyProblem = false
        if let mine = create.participants.first(where: { $0.id == me }) {
            // A sealed key that does not open, or is not the key the creator committed to
            // (so other members may hold another one), leaves the conversation unreadable
            // here and says so, but still replicable: the entry itself is validly signed.
            let opened = try? ConversationCipher.openKey(mine.sealedKey, with: identity)
            if let opened,
                ConversationGenesis.keyCommitment(opened, conversationID: entry.conversationID) == create.keyCommitment
            {
                key = opened
                title = try? ConversationCipher.openTitle(
                    create.sealedTitle, key: opened, conversationID: entry.conversationID)
            } else {
                keyProblem = true
            }
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO conversation(id, creator, createdAt, conversationKey, title, lastActivityAt, keyProblem)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            entry.conversationID.bytes, entry.author.bytes, entry.timestamp, key?.unsafeCopy, title,
            entry.timestamp, keyProblem,
        ])
        for (position, participant) in create.participants.enumerated() {
            try db.cachedStatement(
                sql: "INSERT INTO participant(conversationId, nodeId, position) VALUES (?, ?, ?)"
            ).execute(arguments: [entry.conversationID.bytes, participant.id.bytes, position])
        }
        try refreshSearchIndex(conversation: entry.conversationID, db: db)
    }

    private func insertMessage(_ entry: Entry, sealed: [UInt8], db: Database, context: BatchContext) throws {
        let key = try context.key(entry.conversationID, db: db)
        // A relay holds the raw entry only; a participant without a usable key shows the
        // message as one it could not decrypt.
        let participant = try context.participants(entry.conversationID, db: db).contains(me)
        guard key != nil || participant else { return }
        var text = key.flatMap { key in
            try? ConversationCipher.openMessage(
                sealed, key: SecureBytes(key), conversationID: entry.conversationID, author: entry.author,
                seq: entry.seq)
        }
        if let decrypted = text, (try? Self.checkText(decrypted)) == nil {
            // Text no sender may write (empty, only whitespace, over the limit) is kept in
            // the log but never shown, as the author's own node would have refused it.
            guard entry.author == me else { return }
            text = nil
        }
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
        // A participant signed that it holds these entries of mine: proof they left. (Its
        // clock was checked against what is held, so it cannot cover the future.)
        if node != me {
            let held = max(merged.delivered[me], merged.read[me])
            if held > 0 {
                try db.cachedStatement(
                    sql: "DELETE FROM outbox WHERE conversationId = ? AND author = ? AND seq <= ?"
                ).execute(arguments: [conversation.bytes, me.bytes, held])
            }
        }
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
