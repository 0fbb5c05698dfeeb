import ConfabModel
import GRDB

/// Who is offered a conversation, and how much of it (Protocol.md §12, "Former members"):
/// its current members all of it; a key that was a member and was removed, or left, the
/// entries up to its removal, so it learns of the removal and of nothing written after.
public enum Sharing: Equatable, Sendable {
    case none
    case everything
    case upTo(VectorClock)

    /// `clock` as far as this sharing lets it be offered.
    public func capping(_ clock: VectorClock) -> VectorClock {
        switch self {
        case .none: return VectorClock()
        case .everything: return clock
        case .upTo(let cap):
            var capped = VectorClock()
            for (author, seq) in clock.sortedEntries where min(seq, cap[author]) > 0 {
                capped[author] = min(seq, cap[author])
            }
            return capped
        }
    }
}

extension ConfabStore {
    /// A session with a device of a member is offered what the member is (Protocol.md §20.11).
    public func sharing(_ conversation: ConversationID, with peer: NodeID) throws -> Sharing {
        let peer = try sharingKey(peer, in: conversation)
        // One statement, so one snapshot: a key moves between the two tables in one commit.
        let row = try readUnisolated { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT 1 AS member, NULL AS cap FROM participant WHERE conversationId = ?1 AND nodeId = ?2
                        UNION ALL
                        SELECT 0, cap FROM former_member WHERE conversationId = ?1 AND nodeId = ?2
                        ORDER BY member DESC LIMIT 1
                        """),
                arguments: [conversation.bytes, peer.bytes])
        }
        guard let row else { return .none }
        if (row["member"] as Int?) == 1 { return .everything }
        return .upTo(try VectorClock(json: row["cap"]))
    }

    /// The key `peer` is offered `conversation` as: its person when it is a device a member's
    /// list names now, itself otherwise. Nothing is read for a key no list names (nearly
    /// every peer): this runs for each conversation of every message the engine sends.
    func sharingKey(_ peer: NodeID, in conversation: ConversationID) throws -> NodeID {
        let authors = try deviceAuthorsCache.cached().authors ?? read { db in try deviceAuthors(db: db) }
        guard authors.names(peer) else { return peer }
        let log = try read { db in try membershipLog(conversation, db: db) }
        guard let log else { return peer }
        return authors.currentPerson(of: peer, members: log.isOpen ? nil : log.everMembers)
    }
}
