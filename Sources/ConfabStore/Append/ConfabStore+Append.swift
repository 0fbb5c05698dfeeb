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

    /// Validates and stores a batch in one transaction (the sync path). An entry is
    /// authentic when the hash chain of its author's entries in the batch leads from it to
    /// one whose signature verifies (Protocol.md §7 step 3): only the tops of those chains
    /// are checked, on every core, before the transaction, so the write lock is held only
    /// for the inserts. Entries are applied in the given order, so a batch may carry a
    /// create entry and what follows it.
    /// `keepsOthers`: a relay keeps conversations it is not a participant of; a person's
    /// node refuses them.
    /// `invitations`: conversations the sender announced to this node, whose create entry
    /// may be taken although it does not name this node (a members entry may add it).
    /// `vouchers`: entries of the same message that are not stored now (held back for their
    /// author's rate), whose signatures may still vouch for the entries below them.
    /// `decoded`: the same bytes already decoded, if they are exactly `batch` (else unused).
    public func append(
        batch: [[UInt8]], now: Date = Date(), keepsOthers: Bool = false, invitations: Set<ConversationID> = [],
        vouchers: [[UInt8]] = [], decoded predecoded: DecodedBatch? = nil
    ) throws -> [Result<AppendOutcome, AppendRejection>] {
        // The same entry from a second peer is the common case in a group: recognised by
        // its content hash before any signature is checked, and it costs no write.
        let parsed =
            if let predecoded, predecoded.raw == batch {
                predecoded.entries + ParallelMap.map(vouchers, DecodedBatch.decode)
            } else {
                ParallelMap.map(batch + vouchers, DecodedBatch.decode)
            }
        let held = try heldAlready(parsed[..<batch.count].map { try? $0.get() })
        if held.allSatisfy({ $0 }) { return batch.map { _ in .success(.duplicate) } }
        let fresh = batch.indices.filter { !held[$0] }
        var decoded = [Result<Entry, AppendRejection>?](repeating: nil, count: batch.count)
        let candidates = fresh.map { parsed[$0] } + parsed[batch.count...]
        for (index, result) in zip(fresh, authenticate(candidates)) {
            decoded[index] = result
        }
        // Not synced before it returns: all of it could be fetched again from its authors
        // (Protocol.md §8.0), and the node's next synced commit, within a second, takes it.
        // Unless it holds entries of mine given back (a restored key): losing those again
        // and writing on would fork my own log.
        let givesBackMine = decoded.contains { result in
            if case .success(let entry)? = result { entry.author == me } else { false }
        }
        return try write(durable: givesBackMine) { db in
            let context = BatchContext(store: self, keepsOthers: keepsOthers, now: now, invitations: invitations)
            let results = try zip(decoded, batch).map { result, bytes -> Result<AppendOutcome, AppendRejection> in
                switch result {
                case nil:
                    return .success(.duplicate)
                case .failure(let rejection)?:
                    return .failure(rejection)
                case .success(let entry)?:
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
            try finish(context, db: db)
            return results
        }
    }

    /// For each decoded entry (its signature not checked), whether the very entry (same
    /// place, same content hash) is held. An entry above its author's head here is not, so
    /// a batch of new entries costs one read per author, not one per entry.
    private func heldAlready(_ entries: [Entry?]) throws -> [Bool] {
        guard entries.contains(where: { $0 != nil }) else { return entries.map { _ in false } }
        // Each answer stands alone (an entry held is only ever removed with its whole
        // conversation, here), so the reads need not share a snapshot.
        return try readUnisolated { db in
            let head = try db.cachedStatement(sql: "SELECT seq FROM head WHERE conversationId = ? AND author = ?")
            let entry = try db.cachedStatement(
                sql: "SELECT 1 FROM entry WHERE conversationId = ? AND author = ? AND seq = ? AND hash = ?")
            struct Log: Hashable {
                let conversation: ConversationID
                let author: NodeID
            }
            var heads: [Log: UInt64] = [:]
            return try entries.map { decoded in
                guard let decoded else { return false }
                let key = Log(conversation: decoded.conversationID, author: decoded.author)
                if heads[key] == nil {
                    heads[key] =
                        try UInt64.fetchOne(head, arguments: [decoded.conversationID.bytes, decoded.author.bytes]) ?? 0
                }
                guard decoded.seq <= heads[key]! else { return false }
                return try Int.fetchOne(
                    entry,
                    arguments: [
                        decoded.conversationID.bytes, decoded.author.bytes, Int64(decoded.seq), decoded.hash.bytes,
                    ]) != nil
            }
        }
    }

    /// Checks the signature at the top of each chain of the decoded entries; an entry whose
    /// top does not verify is refused as badly signed (only a liar sends one: an honest
    /// sender ends each chain at an entry whose signature it checked or made, §12 step 3).
    private func authenticate(_ decoded: [Result<Entry, AppendRejection>]) -> [Result<Entry, AppendRejection>] {
        let entries = decoded.map { try? $0.get() }
        let anchors = ChainAnchors.anchors(entries)
        let tops = Array(Set(anchors.compactMap { $0 })).sorted()
        let checks = signatures
        let valid = ParallelMap.map(tops.map { entries[$0]! }, minimum: 4) { checks.check($0) }
        let authentic = Dictionary(uniqueKeysWithValues: zip(tops, valid))
        return zip(decoded, anchors).map { result, anchor in
            guard let anchor, authentic[anchor] == false else { return result }
            return .failure(.wire(.badSignature))
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
}
