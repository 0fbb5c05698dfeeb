import ConfabModel
import Foundation
import GRDB

/// Keys this node has only seen say Hello. A key costs nothing to make, so strangers are
/// neither kept for ever nor dialled after a restart: only peers a person chose (added by
/// hand, verified), or that share a conversation this node created or wrote a message in,
/// are (Protocol.md §12.1). Being named in someone else's create entry is not enough:
/// anyone may create a conversation naming this node and any keys it likes.
extension ConfabStore {
    /// How many strangers are kept, and for how long after they were last seen.
    public static let maxStrangers = 256
    public static let strangerLifetime: TimeInterval = 7 * 24 * 3600

    /// A peer the person chose, as opposed to a stranger (`alias` names the peer table in
    /// the query): the rule of `isKnownPeer`, large groups left out, with blocked keys
    /// counted (a block is kept for good; callers that dial leave them out).
    func chosenPeer(_ alias: String) -> String {
        let me = "x'\(self.me.hex)'"
        return """
            (\(alias).addedByHand = 1 OR \(alias).trust IN ('verified', 'blocked')
                OR EXISTS (
                    SELECT 1 FROM participant them
                    JOIN participant mine ON mine.conversationId = them.conversationId AND mine.nodeId = \(me)
                    JOIN conversation c ON c.id = them.conversationId
                    WHERE them.nodeId = \(alias).id AND them.nodeId != \(me) AND c.large = 0
                        AND (c.creator = \(me) OR EXISTS (
                            SELECT 1 FROM entry e
                            WHERE e.conversationId = c.id AND e.author = \(me)
                                AND e.kind IN (\(EntryKind.message.rawValue), \(EntryKind.file.rawValue))))))
            """
    }

    /// Peers worth dialling at their remembered address: chosen ones only, never strangers
    /// and never blocked keys.
    public func redialCandidates() throws -> [Peer] {
        try chosenPeers().filter { $0.address != nil }
    }

    /// Peers the person chose (added, verified, or sharing a conversation this node created
    /// or wrote in), not blocked, most recently seen first (the keys worth trying for a static peer given without one).
    public func chosenPeers() throws -> [Peer] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.peerColumns("p")) FROM peer p WHERE p.trust != 'blocked'
                    AND \(chosenPeer("p")) ORDER BY COALESCE(p.lastSeenAt, p.addedAt) DESC
                    """
            ).map(Peer.init(row:))
        }
    }

    /// Forgets strangers not seen for `strangerLifetime`, and all but the `maxStrangers`
    /// seen most recently. Returns how many were forgotten.
    @discardableResult
    public func pruneStrangers(now: Date = Date()) throws -> Int {
        try write { db in
            let cutoff = now.addingTimeInterval(-Self.strangerLifetime).millisecondsSince1970
            try db.execute(
                sql: """
                    DELETE FROM peer WHERE id IN (
                        SELECT p.id FROM peer p WHERE NOT \(chosenPeer("p"))
                        AND (COALESCE(p.lastSeenAt, p.addedAt) < ? OR p.id NOT IN (
                            SELECT q.id FROM peer q WHERE NOT \(chosenPeer("q"))
                            ORDER BY COALESCE(q.lastSeenAt, q.addedAt) DESC LIMIT ?)))
                    """,
                arguments: [cutoff, Self.maxStrangers])
            return db.changesCount
        }
    }
}
