import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Signs the next entry of my log in `conversation` and stores it as if received.
    func authorEntry(in conversation: ConversationID, body: EntryBody, db: Database, now: Date) throws -> Entry {
        let (seq, previous, clock) = try nextPosition(in: conversation, db: db)
        let entry = EntryCodec.sign(
            EntryDraft(
                conversationID: conversation, seq: seq, previous: previous, timestamp: now.millisecondsSince1970,
                clock: clock, body: body),
            with: identity)
        let context = BatchContext(store: self, now: now)
        try insertAuthored(entry, db: db, now: now, context: context)
        try finish(context, db: db)
        return entry
    }

    /// Where my next entry in `conversation` goes: its seq, the hash it follows and the
    /// clock it carries. Only a participant writes.
    func nextPosition(
        in conversation: ConversationID, db: Database
    ) throws -> (seq: UInt64, previous: EntryHash?, clock: VectorClock) {
        let participants = try NodeID.fetchParticipants(db, conversation: conversation)
        guard !participants.isEmpty else { throw StoreError.unknownConversation(conversation.hex) }
        guard participants.contains(me) else { throw StoreError.notAParticipant(conversation.hex) }
        let seq = try nextSeq(conversation, db: db)
        let previous = try [UInt8].fetchOne(
            db.cachedStatement(sql: "SELECT hash FROM head WHERE conversationId = ? AND author = ?"),
            arguments: [conversation.bytes, me.bytes]
        ).flatMap { EntryHash(bytes: $0) }
        return (seq, previous, try causalClock(for: conversation, nextSeq: seq, db: db))
    }

    /// Authored entries go through the same validation as received ones, then the outbox;
    /// the caller flushes `context`.
    func insertAuthored(_ entry: Entry, db: Database, now: Date, context: BatchContext) throws {
        _ = try insert(entry, raw: EntryCodec.encode(entry), db: db, now: now, context: context)
        // Sending it on as the top of a run needs no check (§12 step 3).
        if !EntryCodec.isUnsigned(entry) { signatures.noteSigned(entry.hash) }
        try addToOutbox(entry, db: db, now: now)
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

    func nextSeq(_ conversation: ConversationID, db: Database) throws -> UInt64 {
        let head = try UInt64.fetchOne(
            db.cachedStatement(sql: "SELECT seq FROM head WHERE conversationId = ? AND author = ?"),
            arguments: [conversation.bytes, me.bytes])
        return (head ?? 0) + 1
    }
}
