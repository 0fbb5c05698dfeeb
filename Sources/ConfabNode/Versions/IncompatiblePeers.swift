import ConfabModel
import NIOConcurrencyHelpers

/// Peers whose protocol versions do not overlap this node's, with the version each spoke
/// and since when (Protocol.md §12.1). Read by the dial loops off the node's isolation, so
/// that none of them redials such a peer in a loop.
final class IncompatiblePeers: Sendable {
    /// Redialled after this long even if nothing says it changed (a peer reached only by
    /// `--peer`, or an upgrade its beacons have not shown yet).
    static let backoff = Duration.seconds(3600)

    private let peers = NIOLockedValueBox<[NodeID: (version: UInt32, since: ContinuousClock.Instant)]>([:])

    /// Records that `peer` spoke `version`, which does not sync with ours; returns whether
    /// this is news (a peer not recorded, or recorded with another version), to be said once.
    @discardableResult
    func record(_ peer: NodeID, version: UInt32, now: ContinuousClock.Instant = .now) -> Bool {
        peers.withLockedValue { peers in
            defer { peers[peer] = (version, now) }
            return peers[peer]?.version != version
        }
    }

    /// The peer's Hello showed versions that sync.
    func clear(_ peer: NodeID) {
        _ = peers.withLockedValue { $0.removeValue(forKey: peer) }
    }

    /// Whether not to dial `peer`: recorded within the backoff, and its beacon (`version`,
    /// when a beacon asks) says the version it was recorded with.
    func avoids(_ peer: NodeID, version: UInt32? = nil, now: ContinuousClock.Instant = .now) -> Bool {
        peers.withLockedValue { peers in
            guard let known = peers[peer] else { return false }
            if version.map({ $0 != known.version }) ?? false || known.since.duration(to: now) >= Self.backoff {
                peers[peer] = nil
                return false
            }
            return true
        }
    }
}
