import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Signs the next entry of my log in `conversation` and stores it as if received.
    func authorEntry(in conversation: ConversationID, body: EntryBody, db: Database, now: Date) throws -> Entry {
        try authorEntry(in: conversation, db: db, now: now, context: BatchContext(store: self, now: now)) { _ in
            (body, nil)
        }
    }

    /// Signs the next entry of my log in `conversation` and stores it as if received;
    /// `seal` makes its body for the seq it takes, and says what it sealed, which is stored
    /// as said instead of being opened again. `participants`: the conversation's, when the
    /// caller read them already. `context` is finished here; what it noted stays readable.
    /// `naming`: what the clock must name beyond what this node would name by itself (a large
    /// group's epoch names whom it removes and whose leaves it saw, Protocol.md §19.5).
    func authorEntry(
        in conversation: ConversationID, participants: [NodeID]? = nil,
        naming: (VectorClock) throws -> VectorClock = {
            _ in VectorClock()
        }, db: Database, now: Date,
        context: BatchContext, seal: (UInt64) throws -> (body: EntryBody, authored: AuthoredContent?)
    ) throws -> Entry {
        let position = try nextPosition(in: conversation, participants: participants, db: db)
        var clock = position.clock
        clock.merge(try naming(clock))
        let (body, authored) = try seal(position.seq)
        let entry = EntryCodec.sign(
            EntryDraft(
                conversationID: conversation, seq: position.seq, previous: position.previous,
                timestamp: now.millisecondsSince1970, clock: clock, body: body),
            with: identity)
        context.notePosition(position, in: conversation)
        if let authored { context.noteAuthored(entry.hash, content: authored) }
        try insertAuthored(entry, db: db, now: now, context: context)
        try finish(context, db: db)
        return entry
    }

    /// Where my next entry in `conversation` goes: its seq, the hash it follows and the
    /// clock it carries, from one read of the conversation's heads. Only a participant
    /// writes; `participants` when the caller read them already.
    func nextPosition(
        in conversation: ConversationID, participants: [NodeID]? = nil, db: Database
    ) throws -> AuthorPosition {
        let participants = try participants ?? NodeID.fetchParticipants(db, conversation: conversation)
        guard !participants.isEmpty else { throw StoreError.unknownConversation(conversation.hex) }
        guard participants.contains(myPerson) else { throw StoreError.notAParticipant(conversation.hex) }
        try requireNotRemoved(db: db)
        var held: [NodeID: UInt64] = [:]
        var merged = VectorClock()
        var head: BatchContext.Head?
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT author, seq, hash, frontier FROM head WHERE conversationId = ?"),
            arguments: [conversation.bytes])
        {
            let author = row.nodeID("author")
            let seq: UInt64 = row["seq"]
            let frontier = try VectorClock(json: row["frontier"])
            held[author] = seq
            merged.merge(frontier)
            if author == me, let hash = EntryHash(bytes: row["hash"] as [UInt8]) {
                head = BatchContext.Head(seq: seq, hash: hash, frontier: { frontier })
            }
        }
        let seq = (held[me] ?? 0) + 1
        try requireOwnLog(in: conversation, upTo: seq - 1, db: db)
        // A room's and a large group's clocks name a few authors (Protocol.md §18.2, §19.5),
        // not everything held; a large group's names the creator as far as held, so that my
        // entry's view holds every change of the membership I hold.
        let clock =
            if let bounded = try Row.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT creator, room IS NOT NULL AS isRoom FROM conversation WHERE id = ? AND (room IS NOT NULL OR large != 0)"
                ),
                arguments: [conversation.bytes])
            {
                try roomClock(
                    in: conversation, creator: bounded.nodeID("creator"),
                    creatorSeq: bounded["isRoom"] ? 1 : held[bounded.nodeID("creator")] ?? 1, nextSeq: seq, db: db)
            } else {
                causalClock(nextSeq: seq, held: held, merged: merged)
            }
        return AuthorPosition(seq: seq, previous: head?.hash, clock: clock, held: held, head: head)
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
    /// of what I hold had seen (`merged`, their frontiers). An answer to a question then
    /// covers the question's own causal past, so it sorts after the question on every node
    /// (Protocol.md §6). Entries are stored only once what their clocks name is held (§7),
    /// so each component is at most what I hold; the cap keeps that true for stores
    /// written before that rule.
    private func causalClock(nextSeq seq: UInt64, held: [NodeID: UInt64], merged: VectorClock) -> VectorClock {
        var clock = VectorClock()
        for (author, seq) in merged.sortedEntries where author != me {
            let capped = min(seq, held[author] ?? 0)
            if capped > 0 { clock[author] = capped }
        }
        clock[me] = seq - 1
        return clock
    }

    /// My own log's position comes from my store and from entries signed by me that came
    /// back from peers, never from anyone's clock: if such an entry shows my log further
    /// along than my store holds (`held`; a key restored onto an empty store), writing now
    /// would fork it, so it is refused until the missing entries arrive (Protocol.md §4.4.1).
    private func requireOwnLog(in conversation: ConversationID, upTo held: UInt64, db: Database) throws {
        let known =
            try UInt64.fetchOne(
                db.cachedStatement(sql: "SELECT seq FROM own_log_evidence WHERE conversationId = ?"),
                arguments: [conversation.bytes]) ?? 0
        guard known <= held else {
            throw StoreError.ownLogBehind(conversation: conversation.hex, held: held, known: known)
        }
    }

    func nextSeq(_ conversation: ConversationID, db: Database) throws -> UInt64 {
        let head = try UInt64.fetchOne(
            db.cachedStatement(sql: "SELECT seq FROM head WHERE conversationId = ? AND author = ?"),
            arguments: [conversation.bytes, me.bytes])
        return (head ?? 0) + 1
    }
}

/// Where my next entry in a conversation goes, and what was read to know it: every
/// author's held seq and my head, which storing the entry then takes from here.
struct AuthorPosition {
    let seq: UInt64
    let previous: EntryHash?
    let clock: VectorClock
    let held: [NodeID: UInt64]
    let head: BatchContext.Head?
}

/// What an entry of mine seals, known before it was sealed.
enum AuthoredContent {
    case message(MessageContent)
    case reaction(ReactionContent)
    case file(FileDescription)
}

/// How a message of mine was stored: its text, its place in the display order, the reply
/// and mentions kept (those a receiver would keep too).
struct WrittenMessage {
    let text: String
    let clockSum: UInt64
    let reply: MessageRef?
    let mentions: [Mention]
}
