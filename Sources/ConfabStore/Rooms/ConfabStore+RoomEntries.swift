import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

/// What is different about a room's entries when they are stored (Protocol.md §18.2): the
/// room's own key writes only the create, clocks name a few authors, and the order is by
/// those named entries' places rather than by the sum of a clock of every author.
extension ConfabStore {
    /// An entry signed by the room's own key, which everyone on the network can derive: the
    /// create this node made when it joined, again, is a duplicate; anything else proves
    /// nothing about anyone and is refused without a fork proof.
    func roomKeyEntry(_ entry: Entry, db: Database) throws -> AppendOutcome {
        let held = try [UInt8].fetchOne(
            db.cachedStatement(sql: "SELECT hash FROM entry WHERE conversationId = ? AND author = ? AND seq = 1"),
            arguments: [entry.conversationID.bytes, entry.author.bytes])
        guard entry.seq == 1, held == entry.hash.bytes else { throw AppendRejection.notParticipant }
        return .duplicate
    }

    /// A room entry's clock covers the create and names at most `Limits.maxRoomClockOthers`
    /// other authors besides its own (held: checked before, `requireCausalPast`).
    func validateRoomClock(_ entry: Entry, creator: NodeID?) throws {
        guard let creator, entry.clock[creator] == 1 else {
            throw AppendRejection.badClock("does not cover the room's create entry", intrinsic: false)
        }
        let others = entry.clock.entries.keys.filter { $0 != creator && $0 != entry.author }.count
        guard others <= Limits.maxRoomClockOthers else {
            throw AppendRejection.badClock(
                "names \(others) other authors in a room (at most \(Limits.maxRoomClockOthers))", intrinsic: false)
        }
    }

    /// A large group's entry names the creator, its own log and at most
    /// `Limits.maxRoomClockOthers` others; an epoch entry of the creator may also name the
    /// keys it removes and members whose leaves it saw (Protocol.md §19.5).
    func validateLargeGroupClock(_ entry: Entry, creator: NodeID) throws {
        var allowed = Limits.maxRoomClockOthers
        if case .members(let body) = entry.body, body.startsEpoch, entry.author == creator {
            allowed += Limits.maxLargeGroupClockExtra
        }
        let others = entry.clock.entries.keys.filter { $0 != creator && $0 != entry.author }.count
        guard others <= allowed else {
            throw AppendRejection.badClock(
                "names \(others) other authors in a large group (at most \(allowed))", intrinsic: false)
        }
    }

    /// A room entry's place (Protocol.md §18.2): one more than the highest place of the
    /// entries its clock names (the create's is 0). Every named entry is held, so every node
    /// computes the same number, and an entry always comes after what it names.
    func roomOrder(of entry: Entry, db: Database) throws -> UInt64 {
        let place = try db.cachedStatement(
            sql: "SELECT clockSum FROM entry WHERE conversationId = ? AND author = ? AND seq = ?")
        var highest: UInt64 = 0
        for (author, seq) in entry.clock.sortedEntries {
            let named = try UInt64.fetchOne(place, arguments: [entry.conversationID.bytes, author.bytes, seq]) ?? 0
            highest = max(highest, named)
        }
        return highest + 1
    }

    /// The clock my next entry in a room or a large group carries: the create (a large
    /// group's creator at `creatorSeq`), my own log, and the
    /// latest-placed heads of up to `Limits.maxRoomClockOthers` others, so that it sorts
    /// after the newest entries I hold whatever the room's size.
    func roomClock(
        in conversation: ConversationID, creator: NodeID, creatorSeq: UInt64, nextSeq seq: UInt64, db: Database
    ) throws
        -> VectorClock
    {
        var clock = VectorClock()
        clock[creator] = creatorSeq
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT h.author, h.seq FROM head h
                    JOIN entry e ON e.conversationId = h.conversationId AND e.author = h.author AND e.seq = h.seq
                    WHERE h.conversationId = ?1 AND h.author != ?2 AND h.author != ?3
                    ORDER BY e.clockSum DESC, h.author LIMIT ?4
                    """),
            arguments: [conversation.bytes, creator.bytes, me.bytes, Limits.maxRoomClockOthers])
        {
            clock[row.nodeID("author")] = row["seq"]
        }
        if seq > 1 { clock[me] = seq - 1 }
        return clock
    }

    /// The room this node joins: the conversation, with the room's key in force for good and
    /// this node its one listed participant (who may write here; others are not listed).
    func insertRoom(_ entry: Entry, name: RoomName, genesis: RoomGenesis, db: Database, context: BatchContext) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO conversation(id, creator, createdAt, conversationKey, title, lastActivityAt, keyProblem, room)
                VALUES (?, ?, ?, ?, ?, ?, 0, ?)
                """
        ).execute(arguments: [
            entry.conversationID.bytes, entry.author.bytes, entry.timestamp, genesis.key.unsafeCopy,
            name.description, entry.timestamp, name.text,
        ])
        try db.cachedStatement(
            sql: "INSERT INTO participant(conversationId, nodeId, position) VALUES (?, ?, 0)"
        ).execute(arguments: [entry.conversationID.bytes, me.bytes])
        let event = MembershipEvent(
            author: entry.author, seq: 1,
            order: DisplayOrderKey(clockSum: 0, timestamp: 0, author: entry.author, seq: 1),
            add: [], remove: [], recipients: [], frontier: entry.frontier)
        try Self.insertMembershipEvent(event, conversation: entry.conversationID, db: db)
        try storeEpochKey(
            genesis.key.unsafeCopy, conversation: entry.conversationID, epoch: event.ref, db: db, context: context)
        context.noteRoom(entry.conversationID)
        try refreshSearchIndex(conversation: entry.conversationID, db: db)
    }
}
