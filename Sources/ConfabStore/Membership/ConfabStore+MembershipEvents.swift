import ConfabModel
import GRDB

/// The `membership_event` table: what the membership fold needs of every create and members
/// entry held (Protocol.md §4.8.2), and what the fold decides, kept in `participant` (the
/// current members, in join order) and `former_member` (keys removed, with the frontier of
/// their removal).
extension ConfabStore {
    static func insertMembershipEvent(_ event: MembershipEvent, conversation: ConversationID, db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO membership_event(
                    conversationId, author, seq, clockSum, timestamp, added, removed, recipients, frontier)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            conversation.bytes, event.author.bytes, event.seq, event.order.clockSum, event.order.timestamp,
            event.add.flatMap(\.bytes), event.remove.flatMap(\.bytes), event.recipients.map { $0.flatMap(\.bytes) },
            event.frontier.json,
        ])
    }

    /// Every membership event held of `conversation`; nil when its create entry is not held.
    /// The conversation's membership log, nil if it is not held: from the cache when it holds
    /// the log of as many events as are held now (`MembershipLogCache`).
    func membershipLog(_ conversation: ConversationID, db: Database) throws -> MembershipLog? {
        let events =
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT count(*) FROM membership_event WHERE conversationId = ?"),
                arguments: [conversation.bytes]) ?? 0
        // A log is folded with who its authors count as: one folded before a device list
        // changed is not kept after it (`forgetDeviceAuthorsAfterCommit`).
        let generation = deviceAuthorsCache.cached().generation
        if let cached = membershipLogs.log(of: conversation, events: events, generation: generation) {
            return cached
        }
        let authors = try deviceAuthors(db: db)
        guard let log = try Self.fetchMembershipLog(conversation, authors: authors, db: db) else { return nil }
        if db.isInsideTransaction, !db.configuration.readonly {
            commits.afterCommit { [membershipLogs] in
                membershipLogs.keep(log, of: conversation, events: events, generation: generation)
            }
        } else {
            membershipLogs.keep(log, of: conversation, events: events, generation: generation)
        }
        return log
    }

    /// `authors`: who each event's author counts as (Protocol.md §20.11).
    static func fetchMembershipLog(
        _ conversation: ConversationID, authors: DeviceAuthors = DeviceAuthors(), db: Database
    ) throws -> MembershipLog? {
        guard
            let conversationRow = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT creator, room, large FROM conversation WHERE id = ?"),
                arguments: [conversation.bytes]),
            let creator = NodeID(bytes: conversationRow["creator"] as [UInt8])
        else { return nil }
        let isRoom = (conversationRow["room"] as String?) != nil
        var create: MembershipEvent?
        var changes: [MembershipEvent] = []
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM membership_event WHERE conversationId = ?"),
            arguments: [conversation.bytes])
        // Whose each change is depends on who was ever named a member (§20.11): every add,
        // whoever wrote it, so it is known before any author is resolved.
        let everMembers: Set<NodeID>? =
            isRoom ? nil : rows.reduce(into: Set<NodeID>()) { $0.formUnion(keys(in: $1["added"])) }
        for row in rows {
            let author = row.nodeID("author")
            let seq: UInt64 = row["seq"]
            let person =
                author == creator && seq == 1
                ? MembershipEvent.createPerson(author: author, participants: keys(in: row["added"]))
                : authors.person(of: author, in: conversation, seq: seq, members: everMembers)
            let event = MembershipEvent(
                author: author, seq: seq,
                order: DisplayOrderKey(
                    clockSum: row["clockSum"], timestamp: row["timestamp"], author: author, seq: seq),
                add: keys(in: row["added"]), remove: keys(in: row["removed"]),
                recipients: (row["recipients"] as [UInt8]?).map { keys(in: $0) },
                frontier: try VectorClock(json: row["frontier"]), person: person)
            if author == creator, seq == 1 { create = event } else { changes.append(event) }
        }
        guard let create else { return nil }
        return isRoom
            ? MembershipLog(room: create)
            : MembershipLog(create: create, changes: changes, isLarge: conversationRow["large"] as Bool)
    }

    /// Writes what the fold of everything held decides: the current members, and the
    /// former ones with what they may still be sent.
    static func storeMembership(_ membership: Membership, of conversation: ConversationID, db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM participant WHERE conversationId = ?").execute(arguments: [
            conversation.bytes
        ])
        for (position, member) in membership.members.enumerated() {
            try db.cachedStatement(
                sql: "INSERT INTO participant(conversationId, nodeId, position) VALUES (?, ?, ?)"
            ).execute(arguments: [conversation.bytes, member.bytes, position])
        }
        try db.cachedStatement(sql: "DELETE FROM former_member WHERE conversationId = ?").execute(arguments: [
            conversation.bytes
        ])
        for (key, removal) in membership.removedBy {
            try db.cachedStatement(
                sql: "INSERT INTO former_member(conversationId, nodeId, cap) VALUES (?, ?, ?)"
            ).execute(arguments: [conversation.bytes, key.bytes, removal.frontier.json])
        }
    }

    static func keys(in blob: [UInt8]) -> [NodeID] {
        stride(from: 0, to: blob.count - blob.count % NodeID.length, by: NodeID.length).compactMap {
            NodeID(bytes: Array(blob[$0..<$0 + NodeID.length]))
        }
    }
}
