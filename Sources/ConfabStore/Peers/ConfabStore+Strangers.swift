import ConfabModel
import Foundation
import GRDB

/// Keys this node has only seen say Hello. A key costs nothing to make, so strangers are
/// neither kept for ever nor dialled after a restart: only peers a person chose (added by
/// hand, verified), or that share a conversation with this node, are (Protocol.md §12.1).
extension ConfabStore {
    /// How many strangers are kept, and for how long after they were last seen.
    public static let maxStrangers = 256
    public static let strangerLifetime: TimeInterval = 7 * 24 * 3600

    /// A peer the person chose or shares a conversation with, as opposed to a stranger
    /// (`alias` names the peer table in the query).
    static func chosenPeer(_ alias: String) -> String {
        """
        (\(alias).addedByHand = 1 OR \(alias).trust IN ('verified', 'blocked')
            OR EXISTS (SELECT 1 FROM participant pa WHERE pa.nodeId = \(alias).id))
        """
    }

    /// Peers worth dialling at their remembered address: chosen ones only, never strangers
    /// and never blocked keys.
    public func redialCandidates() throws -> [Peer] {
        try chosenPeers().filter { $0.address != nil }
    }

    /// Peers the person chose or shares a conversation with, not blocked, most recently
    /// seen first (the keys worth trying for a static peer given without one).
    public func chosenPeers() throws -> [Peer] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.* FROM peer p WHERE p.trust != 'blocked'
                    AND \(Self.chosenPeer("p")) ORDER BY COALESCE(p.lastSeenAt, p.addedAt) DESC
                    """
            ).map(Peer.init(row:))
        }
    }

    /// Forgets strangers not seen for `strangerLifetime`, and all but the `maxStrangers`
    /// seen most recently. Returns how many were forgotten.
    @discardableResult
    public func pruneStrangers(now: Date = Date()) throws -> Int {
        try writer.write { db in
            let cutoff = now.addingTimeInterval(-Self.strangerLifetime).millisecondsSince1970
            try db.execute(
                sql: """
                    DELETE FROM peer WHERE id IN (
                        SELECT p.id FROM peer p WHERE NOT \(Self.chosenPeer("p"))
                        AND (COALESCE(p.lastSeenAt, p.addedAt) < ? OR p.id NOT IN (
                            SELECT q.id FROM peer q WHERE NOT \(Self.chosenPeer("q"))
                            ORDER BY COALESCE(q.lastSeenAt, q.addedAt) DESC LIMIT ?)))
                    """,
                arguments: [cutoff, Self.maxStrangers])
            return db.changesCount
        }
    }
}
