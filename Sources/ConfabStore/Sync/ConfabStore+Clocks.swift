import ConfabModel
import GRDB

/// Clocks as the `head` table holds them: for each conversation, each author's highest
/// seq held here. Heads outlive deleted entries, so a deleted message is never fetched
/// again.
extension ConfabStore {
    /// The vector clock of one conversation, as this store committed it (`ClockCache`).
    public func clock(of conversation: ConversationID) throws -> VectorClock {
        if let cached = clocks.clock(of: conversation) { return cached }
        let held = try readUnisolated { db in try VectorClock.fetchHeld(db, conversation: conversation) }
        clocks.merge(held, of: conversation)
        return held
    }

    /// Ends a batch's write: what it deferred is written, and the clocks it grew are cached
    /// once its commit is done.
    func finish(_ context: BatchContext, db: Database) throws {
        try context.writeHeads(db: db)
        try context.flush(db: db)
        for (conversation, clock) in context.grownClocks {
            commits.afterCommit { [clocks] in clocks.merge(clock, of: conversation) }
        }
    }

    /// The clocks of every conversation held (on a relay, others' conversations too).
    public func allClocks() throws -> [ConversationID: VectorClock] {
        try read { db in try Self.fetchClocks(db, sql: "SELECT conversationId, author, seq FROM head") }
    }

    /// The clocks to announce to a peer: conversations it takes part in (up to its removal
    /// for one it was removed from), or every conversation held when the peer is a relay.
    public func clocks(sharedWith peer: NodeID, everything: Bool = false) throws -> [ConversationID: VectorClock] {
        guard !everything else { return try allClocks() }
        return try read { db in
            var clocks = try Self.fetchClocks(
                db,
                sql: """
                    SELECT h.conversationId, h.author, h.seq FROM head h
                    JOIN participant p ON p.conversationId = h.conversationId AND p.nodeId = ?
                    """,
                arguments: [peer.bytes])
            // A former member is told of the conversation up to its removal only.
            for row in try Row.fetchAll(
                db, sql: "SELECT conversationId, cap FROM former_member WHERE nodeId = ?", arguments: [peer.bytes])
            {
                let conversation = row.conversationID("conversationId")
                let held = try VectorClock.fetchHeld(db, conversation: conversation)
                clocks[conversation] = Sharing.upTo(try VectorClock(json: row["cap"])).capping(held)
            }
            // A device of a member is told of the member's conversations (Protocol.md §20.11).
            let authors = try deviceAuthors(db: db)
            guard authors.names(peer) else { return clocks }
            for conversation in try [UInt8].fetchAll(
                db, sql: "SELECT DISTINCT conversationId FROM participant WHERE nodeId <> ?", arguments: [peer.bytes]
            ).compactMap(ConversationID.init(bytes:)) where clocks[conversation] == nil {
                guard let log = try membershipLog(conversation, db: db), !log.isOpen else { continue }
                let person = authors.currentPerson(of: peer, members: log.everMembers)
                if person != peer, log.current.contains(person) {
                    clocks[conversation] = try VectorClock.fetchHeld(db, conversation: conversation)
                }
            }
            return clocks
        }
    }

    /// `sql` selects `conversationId, author, seq` from `head`.
    private static func fetchClocks(
        _ db: Database, sql: String, arguments: StatementArguments = []
    ) throws -> [ConversationID: VectorClock] {
        var clocks: [ConversationID: VectorClock] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments) {
            clocks[row.conversationID("conversationId"), default: VectorClock()][row.nodeID("author")] = row["seq"]
        }
        return clocks
    }
}

extension VectorClock {
    /// What is held of `conversation`: each author's head.
    static func fetchHeld(_ db: Database, conversation: ConversationID) throws -> VectorClock {
        var clock = VectorClock()
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT author, seq FROM head WHERE conversationId = ?"),
            arguments: [conversation.bytes])
        {
            clock[row.nodeID("author")] = row["seq"]
        }
        return clock
    }
}
