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
        if let cached = membershipLogs.log(of: conversation, events: events) { return cached }
        guard let log = try Self.fetchMembershipLog(conversation, db: db) else { return nil }
        if db.isInsideTransaction, !db.configuration.readonly {
            commits.afterCommit { [membershipLogs] in membershipLogs.keep(log, of: conversation, events: events) }
        } else {
            membershipLogs.keep(log, of: conversation, events: events)
        }
        return log
    }

    static func fetchMembershipLog(_ conversation: ConversationID, db: Database) throws -> MembershipLog? {
        guard
            let conversationRow = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT creator, room, large FROM conversation WHERE id = ?"),
                arguments: [conversation.bytes]),
            let creator = NodeID(bytes: conversationRow["creator"] as [UInt8])
        else { return nil }
        let isRoom = (conversationRow["room"] as String?) != nil
        var create: MembershipEvent?
        var changes: [MembershipEvent] = []
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM membership_event WHERE conversationId = ?"),
            arguments: [conversation.bytes])
        {
            let author = row.nodeID("author")
            let seq: UInt64 = row["seq"]
            let event = MembershipEvent(
                author: author, seq: seq,
                order: DisplayOrderKey(
                    clockSum: row["clockSum"], timestamp: row["timestamp"], author: author, seq: seq),
                add: keys(in: row["added"]), remove: keys(in: row["removed"]),
                recipients: (row["recipients"] as [UInt8]?).map { keys(in: $0) },
                frontier: try VectorClock(json: row["frontier"]))
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
