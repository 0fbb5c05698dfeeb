import ConfabModel
import GRDB

extension ConfabStore {
    /// Whether this node's person chose to deal with `id`: added it by hand, verified it, or
    /// shares a conversation with it that this node created or wrote a message in. Being a
    /// participant of a conversation someone else created is not enough until this node
    /// writes in it: anyone holding the network key may create one, which would make every
    /// throwaway key known. Nor is a large group (Protocol.md §19): its creator would know a
    /// thousand keys. A blocked key is never known.
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
                                WHERE them.nodeId = :id AND conversation.large = 0
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
    ///
    /// The people of conversations someone else created count too, but at most
    /// `othersShare` of them: a group a colleague I never added made for the office should
    /// still be a dense mesh (without it, 50 members met at random over 16 strangers' slots
    /// each, and every entry went on by the lazy path, 10 to 19 copies each), while a
    /// stranger's conversation naming any number of keys takes no more than that share.
    /// They are taken from the conversations with the latest entry first, and within one
    /// conversation by the XOR distance of their key to mine, so every member picks a
    /// different, stable part of the group and the whole stays connected. The people of a
    /// large group count among those, whoever created it: its eager tree carries what they
    /// write, and a group of 1,024 would otherwise have its creator dial all of them
    /// (Protocol.md §19.6).
    public func fellowParticipants(
        createdBy creators: Set<NodeID>, othersShare: Int = ConfabStore.othersFellowShare
    ) throws -> Set<NodeID> {
        let rows = try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.creator, c.large, c.id AS conversationId, them.nodeId FROM participant them
                    JOIN participant mine ON mine.conversationId = them.conversationId AND mine.nodeId = :me
                    JOIN conversation c ON c.id = them.conversationId
                    WHERE them.nodeId != :me
                      AND NOT EXISTS (SELECT 1 FROM peer WHERE peer.id = them.nodeId AND trust = 'blocked')
                    ORDER BY c.lastActivityAt DESC, c.id
                    """,
                arguments: ["me": myPerson.bytes])
        }
        var fellows = Set<NodeID>()
        var others: [[NodeID]] = []
        var largeGroups = Set<Int>()
        var lastConversation: [UInt8]?
        for row in rows {
            guard let creator = NodeID(bytes: row["creator"] as [UInt8]),
                let id = NodeID(bytes: row["nodeId"] as [UInt8])
            else { continue }
            if creator == me || creators.contains(creator), (row["large"] as Int?) == 0 {
                fellows.insert(id)
                continue
            }
            let conversation: [UInt8] = row["conversationId"] ?? []
            if others.isEmpty || lastConversation != conversation {
                if (row["large"] as Int?) != 0 { largeGroups.insert(others.count) }
                others.append([])
            }
            lastConversation = conversation
            others[others.count - 1].append(id)
        }
        var share = Set<NodeID>()
        for (index, members) in others.enumerated() {
            // A large group needs a few links per member, not a mesh: its tree carries what
            // is written, and every link more is one more peer announcing each entry.
            var fromThis = 0
            let limit = largeGroups.contains(index) ? Self.largeGroupFellows : othersShare
            for id in members.sorted(by: { Self.distance($0, me).lexicographicallyPrecedes(Self.distance($1, me)) }) {
                guard share.count < othersShare, fromThis < limit else { break }
                if !fellows.contains(id), share.insert(id).inserted { fromThis += 1 }
            }
        }
        return fellows.union(share)
    }

    /// People of conversations others created that a node seeks sessions with, at most.
    public static let othersFellowShare = 32
    /// Of those, the most from one large group.
    public static let largeGroupFellows = 6

    /// XOR of two keys, compared as big-endian bytes.
    static func distance(_ a: NodeID, _ b: NodeID) -> [UInt8] {
        zip(a.bytes, b.bytes).map { $0 ^ $1 }
    }
}
