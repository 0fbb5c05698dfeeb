import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// The single place where entries enter the store, whether received or authored here.
    /// Every check comes before the first write: a rejection leaves nothing behind.
    func insert(_ entry: Entry, raw: [UInt8], db: Database, now: Date, context: BatchContext) throws -> AppendOutcome {
        let conversation = entry.conversationID.bytes
        let author = entry.author.bytes
        let isRoom = try context.isRoom(entry.conversationID, db: db)
        let isLarge = try !isRoom && context.isLarge(entry.conversationID, db: db)
        if isRoom, try entry.author == context.creator(entry.conversationID, db: db) {
            return try roomKeyEntry(entry, db: db)
        }

        var previousFrontier: VectorClock?
        if let held = try head(of: entry, db: db, context: context) {
            let headSeq = held.seq
            let headHash = held.hash.bytes
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
                            proof: try forkProof(
                                held: heldRaw(entry.conversationID, author: entry.author, seq: entry.seq, db: db),
                                received: raw, entry: entry, db: db, context: context))
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
                throw AppendRejection.brokenChain(
                    proof: try forkProof(
                        held: heldRaw(entry.conversationID, author: entry.author, seq: headSeq, db: db),
                        received: raw, entry: entry, db: db, context: context))
            }
            previousFrontier = try held.frontier()
        } else {
            // A proof can arrive (ForkProof) before any entry of its author is held here.
            guard try !context.forkedAuthors(entry.conversationID, db: db).contains(entry.author) else {
                throw AppendRejection.forkedAuthor
            }
            guard entry.seq == 1 else { throw AppendRejection.gap(expected: 1, got: entry.seq) }
        }
        // What the entry shows wrong by itself comes first: it ends the session whatever
        // else is wrong with it here.
        try validateOwnClock(entry)
        // Clocks only grow: an author's entry covers what its previous entry had seen
        // (Protocol.md §7 step 4), so nobody can sort a new message above older ones.
        // A room's clocks name a few authors each (Protocol.md §18.2), not all it saw.
        if !isRoom, !isLarge, let previousFrontier, !entry.clock.covers(previousFrontier) {
            throw AppendRejection.badClock("does not cover the author's previous entry", intrinsic: false)
        }
        // A large group's entries name a few authors too, but never an earlier epoch than the
        // author's previous entry saw (Protocol.md §19.5).
        if isLarge, let previousFrontier, let creator = try context.creator(entry.conversationID, db: db),
            entry.clock[creator] < previousFrontier[creator]
        {
            throw AppendRejection.badClock("names the group's creator below its previous entry", intrinsic: false)
        }

        let everMembers: Set<NodeID>
        var membershipLog: MembershipLog?
        if case .create(let create) = entry.body {
            if try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM conversation WHERE id = ?"), arguments: [conversation]) != nil
            {
                // Ids are derived from the creator's key, so only the creator can have made
                // a second create; its head above caught that already. (A protocol 1 id is
                // random: a second create claiming one is refused here all the same.)
                throw AppendRejection.fork(proof: nil)
            }
            everMembers = Set(create.participantIDs)
            // A protocol 1 create is not checked against any derivation: taken from a peer, it
            // could claim any id, a derived one included, before the real create arrives
            // (Protocol.md §4.9). Only those held before the upgrade stay.
            if create.isLegacy { throw AppendRejection.legacyCreate }
            if !context.keepsOthers, !everMembers.contains(myPerson),
                try !context.mayHoldUnjoined(entry.conversationID, me: me, db: db)
            {
                throw AppendRejection.notMember
            }
        } else if case .room = entry.body {
            // Made by this node when it joins, from the name and the network key; a peer's
            // copy of a room this node has not joined is no reason to hold it.
            guard context.joining?.conversationID == entry.conversationID,
                context.joining?.create.content == entry.content
            else { throw AppendRejection.notMember }
            everMembers = []
        } else {
            guard let log = try context.membershipLog(entry.conversationID, db: db) else {
                throw AppendRejection.unknownConversation
            }
            everMembers = log.everMembers
            membershipLog = log
        }
        let heads = try context.heads(entry.conversationID, db: db)
        let forked = try context.forkedAuthors(entry.conversationID, db: db)
        // Whose the entry is (Protocol.md §20.11): every membership rule below asks its
        // person; its log, seq, chain and clocks stay its author key's.
        let authors = try deviceAuthors(db: db)
        let person = person(of: entry, log: membershipLog, authors: authors)
        if case .create(let create) = entry.body { try checkCreatePerson(entry, create, authors: authors) }
        // Nothing that depends on who was ever a member is judged before the entry's whole
        // causal past is held: the entry that added its author, or a key its clock names,
        // may be in that past and not here yet (a new member's first receipt, relayed ahead
        // of the add). Refused then, it would never be offered again in the session.
        try requireCausalPast(entry, heads: heads, forked: forked, authors: authors)
        // Only a key that was ever a member can have written here; whether it was one when
        // it wrote is checked below, against its view.
        if let membershipLog, !membershipLog.isOpen, !everMembers.contains(person) {
            throw AppendRejection.notParticipant
        }
        if isRoom {
            try validateRoomClock(entry, creator: try context.creator(entry.conversationID, db: db))
        } else if entry.kind != .room {
            let creator = try context.creator(entry.conversationID, db: db)
            try validateClockNames(entry, participants: everMembers, creator: creator, authors: authors)
            if isLarge, let creator { try validateLargeGroupClock(entry, creator: creator) }
        }
        // Who the author believed were members when writing: its causal past, held here now
        // (the clocks were checked above: an entry whose past is not all held waits, and is
        // never judged on a part of it), Protocol.md §4.8.3.
        var view: Membership?
        if let membershipLog {
            let seen = membershipLog.view(entry.clock)
            guard seen.contains(person) else { throw AppendRejection.notParticipant }
            try Self.checkMembership(entry, person: person, view: seen, log: membershipLog)
            view = seen
        }
        if let target = entry.actionTarget { try checkActionTarget(entry, target: target, db: db) }
        if entry.kind == .members || entry.kind == .setting { try checkPersonalKind(entry, db: db) }
        let order =
            isRoom || isLarge
            ? try roomOrder(of: entry, db: db) : Self.orderingSum(of: entry, heads: heads, forked: forked)

        if case .create(let create) = entry.body {
            try insertConversation(entry, create: create, db: db, context: context)
        }
        if case .room(let name) = entry.body, let genesis = context.joining {
            try insertRoom(entry, name: name, genesis: genesis, db: db, context: context)
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO entry(conversationId, author, seq, hash, kind, timestamp, clockSum, raw, receivedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).insertRow([
            .blob(conversation), .blob(author), .integer(entry.seq), .blob(entry.hash.bytes),
            .integer(Int(entry.kind.rawValue)), .integer(entry.timestamp), .integer(order), .blob(raw),
            .integer(now.millisecondsSince1970),
        ])
        // The head row is written once per author when the batch finishes (`finish`).
        context.noteInserted(entry)

        switch entry.body {
        case .message(let sealed):
            try insertMessage(
                entry, sealed: sealed, clockSum: order, epoch: view?.epochInForce, db: db, context: context)
        case .receipt(let delivered, let read):
            // Delivered and read are a person's (§20.11): what any of its devices holds or read.
            try mergeReceipt(
                conversation: entry.conversationID, from: person,
                ReceiptClocks(delivered: delivered, read: read), db: db)
            if person == myPerson, entry.author != me {
                try adoptReadMarks(entry.conversationID, read: read, db: db)
            }
        case .edit(let target, let sealed):
            try applyEdit(entry, target: target, sealed: sealed, epoch: view?.epochInForce, db: db, context: context)
        case .unsend(let target):
            try applyUnsend(entry, target: target, db: db)
        case .react(let sealed):
            try applyReaction(entry, sealed: sealed, epoch: view?.epochInForce, db: db, context: context)
        case .members(let members):
            try applyMembers(entry, members, person: person, view: view, db: db, context: context)
        case .file(let file):
            try insertFileMessage(
                entry, file: file, clockSum: order, epoch: view?.epochInForce, db: db, context: context)
        case .setting(let sealed):
            try applySetting(
                entry, sealed: sealed, person: person, epoch: view?.epochInForce, db: db, now: now, context: context)
        case .create, .room, .unknown:
            break
        }
        if person != entry.author, entry.kind == .message || entry.kind == .file {
            try notePerson(person, of: entry, db: db)
        }
        return .appended(entry)
    }

    /// A create by a key that is no participant is a device's, written in its person's name
    /// (Protocol.md §20.11): taken only when exactly one held list, that of the person it
    /// lists first, claims the key now. The first participant is the admin of the fold, so a
    /// device listing anyone else first would hand its conversation to a person who never
    /// made it. Before the list arrives it is refused as any non-member's entry, and asked
    /// for again once the list is held.
    private func checkCreatePerson(_ entry: Entry, _ create: CreateBody, authors: DeviceAuthors) throws {
        let participants = create.participantIDs
        guard !participants.contains(entry.author) else { return }
        let person = authors.person(
            of: entry.author, in: entry.conversationID, seq: entry.seq, members: Set(participants))
        guard person != entry.author, person == participants.first else { throw AppendRejection.notParticipant }
    }

    /// The author's head here: the entry this batch inserted last, else the stored row.
    private func head(of entry: Entry, db: Database, context: BatchContext) throws -> BatchContext.Head? {
        if let inserted = context.inserted(entry.conversationID, author: entry.author) { return inserted }
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT seq, hash, frontier FROM head WHERE conversationId = ? AND author = ?"),
                arguments: [entry.conversationID.bytes, entry.author.bytes]),
            let hash = EntryHash(bytes: row["hash"] as [UInt8])
        else { return nil }
        let json: String = row["frontier"]
        return BatchContext.Head(seq: row["seq"], hash: hash, frontier: { try VectorClock(json: json) })
    }

    private func heldRaw(_ conversation: ConversationID, author: NodeID, seq: UInt64, db: Database) throws -> [UInt8]? {
        try [UInt8].fetchOne(
            db.cachedStatement(sql: "SELECT raw FROM entry WHERE conversationId = ? AND author = ? AND seq = ?"),
            arguments: [conversation.bytes, author.bytes, seq])
    }

    /// Every other entry the causal clock names must be held here already (`validateOwnClock`
    /// checked the author's own). This rule makes a clock a claim backed by signed entries:
    /// a made-up `{bob: 99}` is never stored, so it can neither stop Bob from writing, nor
    /// spread into anyone's clock, nor pin an entry to the end of the order (Protocol.md §7).
    ///
    /// An author proven to have forked its log here (`forked`) is the exception: its log
    /// stops growing here, so an honest member who holds more of it (another branch, or the
    /// same branch further) would otherwise wait for ever. Its component is believed only up
    /// to what is held: not required, and capped for the display order (`orderingSum`).
    ///
    /// A device its person removed is the same (§20.11): its log is never taken past the
    /// removal's cut, so a member who took more of it before the removal reached it must
    /// still be heard by one who holds the cut.
    private func requireCausalPast(
        _ entry: Entry, heads: [NodeID: UInt64], forked: Set<NodeID>, authors: DeviceAuthors
    ) throws {
        for (author, seq) in entry.clock.sortedEntries where author != entry.author && !forked.contains(author) {
            let held = heads[author] ?? 0
            if let cut = authors.cut(of: author, in: entry.conversationID), held >= cut { continue }
            guard seq <= held else { throw AppendRejection.missingDependency(author, seq: seq, held: held) }
        }
    }

    /// Clocks may only name participants, and the causal clock must cover the
    /// conversation's create entry. Checked once the causal past is held, so a key the
    /// clock names is a participant here if it is one anywhere.
    /// A member's device is named as the member is (§20.11).
    private func validateClockNames(
        _ entry: Entry, participants members: Set<NodeID>, creator: NodeID?, authors: DeviceAuthors
    ) throws {
        var clocks = [entry.clock]
        if case .receipt(let delivered, let read) = entry.body { clocks += [delivered, read] }
        // Who is a participant depends on the create entry held here: its creator may have
        // signed two with one nonce and different lists, and an honest member holding the
        // other may forward this entry, so this does not end the session.
        for clock in clocks {
            for author in clock.entries.keys
            where !members.contains(
                authors.person(of: author, in: entry.conversationID, seq: 1, members: members))
            {
                throw AppendRejection.badClock("names \(author.shortHex), not a participant", intrinsic: false)
            }
        }
        // Every entry but the create comes after it: an author's first entry cannot be
        // placed before the conversation began (Protocol.md §6).
        if let creator, entry.kind != .create, entry.clock[creator] == 0 {
            throw AppendRejection.badClock("does not cover the conversation's create entry", intrinsic: false)
        }
    }

    /// The rules an entry's clocks break or keep whatever the receiver holds: the causal
    /// clock holds the author's own previous entry exactly (an author always has its own
    /// log), and a receipt cannot cover what its author had not seen when writing it.
    private func validateOwnClock(_ entry: Entry) throws {
        guard entry.clock[entry.author] == entry.seq - 1 else {
            throw AppendRejection.badClock(
                "author's own seq is \(entry.clock[entry.author]), expected \(entry.seq - 1)")
        }
        if case .receipt(let delivered, let read) = entry.body {
            guard entry.clock.covers(delivered), entry.clock.covers(read) else {
                throw AppendRejection.badClock("receipt covers entries its author had not seen")
            }
        }
    }

    /// The clock sum an entry is ordered by here (Protocol.md §6): its clock's, with a
    /// forked author's component counted only up to what is held, so a claim about a log
    /// nobody here can check cannot pin the entry below everything written later.
    static func orderingSum(of entry: Entry, heads: [NodeID: UInt64], forked: Set<NodeID>) -> UInt64 {
        var clock = entry.clock
        for author in forked where author != entry.author {
            clock[author] = min(clock[author], heads[author] ?? 0)
        }
        return clock.sum
    }
}
