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

    /// Everyone sharing a conversation with me, blocked keys left out: the peers a node
    /// wants sessions with beyond the ones its person chose (Protocol.md §10.6). Broader
    /// than `isKnownPeer` on purpose: it only decides whom to dial on their beacons, never
    /// who is trusted, and a member of a group someone else created is a peer to reach.
    public func fellowParticipants() throws -> Set<NodeID> {
        try read { db in
            Set(
                try [UInt8].fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT them.nodeId FROM participant them
                        JOIN participant mine ON mine.conversationId = them.conversationId AND mine.nodeId = :me
                        WHERE them.nodeId != :me
                          AND NOT EXISTS (SELECT 1 FROM peer WHERE peer.id = them.nodeId AND trust = 'blocked')
                        """,
                    arguments: ["me": me.bytes]
                ).compactMap(NodeID.init(bytes:)))
        }
    }
}
