import ConfabModel
import GRDB

extension ConfabStore {
    /// Whether this node's person chose to deal with `id`: added it by hand, verified it, or
    /// shares a conversation with it that this node created or wrote a message in. Being a
    /// participant of a conversation someone else created is not enough until this node
    /// writes in it: anyone holding the network key may create one, which would make every
    /// throwaway key known. A blocked key is never known.
    public func isKnownPeer(_ id: NodeID) throws -> Bool {
        guard id != me else { return false }
        return try read { db in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT CASE
                            WHEN EXISTS (SELECT 1 FROM peer WHERE id = :id AND trust = 'blocked') THEN 0
                            WHEN EXISTS (
                                SELECT 1 FROM peer WHERE id = :id AND (addedByHand = 1 OR trust = 'verified')) THEN 1
                            ELSE EXISTS (
                                SELECT 1 FROM participant them
                                JOIN participant mine ON mine.conversationId = them.conversationId AND mine.nodeId = :me
                                JOIN conversation ON conversation.id = them.conversationId
                                WHERE them.nodeId = :id
                                    AND (conversation.creator = :me OR EXISTS (
                                        SELECT 1 FROM message
                                        WHERE message.conversationId = conversation.id AND message.author = :me)))
                        END
                        """),
                arguments: ["id": id.bytes, "me": me.bytes]) ?? false
        }
    }

    /// Everyone sharing a conversation with me that I or one of `creators` (the peers my
    /// person chose) created, blocked keys left out: the peers a node wants sessions with
    /// beyond the chosen ones (Protocol.md §10.6), so a member of a group a colleague made is
    /// reached before writing in it. A conversation a stranger created counts for nothing:
    /// anyone may create one naming this node and any number of keys, which would otherwise
    /// make it dial them all and fill its sessions again. Decides only whom to dial, never
    /// whom to trust.
    public func fellowParticipants(createdBy creators: Set<NodeID>) throws -> Set<NodeID> {
        let rows = try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.creator, them.nodeId FROM participant them
                    JOIN participant mine ON mine.conversationId = them.conversationId AND mine.nodeId = :me
                    JOIN conversation c ON c.id = them.conversationId
                    WHERE them.nodeId != :me
                      AND NOT EXISTS (SELECT 1 FROM peer WHERE peer.id = them.nodeId AND trust = 'blocked')
                    """,
                arguments: ["me": me.bytes])
        }
        var fellows = Set<NodeID>()
        for row in rows {
            guard let creator = NodeID(bytes: row["creator"] as [UInt8]), creator == me || creators.contains(creator),
                let id = NodeID(bytes: row["nodeId"] as [UInt8])
            else { continue }
            fellows.insert(id)
        }
        return fellows
    }
}
