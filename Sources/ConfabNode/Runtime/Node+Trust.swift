import ConfabClient
import ConfabModel
import ConfabNet
import ConfabStore
import Foundation
import NIOConcurrencyHelpers

/// The keys a node refuses. The handshake asks it on NIO threads, so it sits behind a lock
/// rather than in the actor.
final class BlockList: Sendable {
    private let keys = NIOLockedValueBox<Set<NodeID>>([])

    func contains(_ id: NodeID) -> Bool { keys.withLockedValue { $0.contains(id) } }

    /// Replaces the set; returns the keys that were not blocked before.
    func replace(with new: Set<NodeID>) -> Set<NodeID> {
        keys.withLockedValue { keys in
            defer { keys = new }
            return new.subtracting(keys)
        }
    }
}

extension Node {
    /// Reads the block list from the store (CLI commands change it there) and ends any
    /// session with a key that is newly blocked. Accepted connections from blocked keys are
    /// refused inside the handshake; dials and beacons skip them.
    func reloadTrust() throws {
        let newlyBlocked = blockList.replace(with: try local.store.blockedPeers())
        for id in newlyBlocked {
            guard let session = sessions.session(with: id) else { continue }
            logger.info("closing session with \(id.shortHex): blocked")
            session.close(reason: .sessionRefused)
        }
    }

    /// A front end changed a peer's trust or added one (block, unblock, verify, peers add):
    /// takes effect now rather than at the next poll, and a peer now worth dialling is dialled.
    public func trustChanged() throws {
        try reloadTrust()
        try dialNewlyDialable(why: "made a peer to dial here")
    }

    /// A session that opened although its key is blocked (a dial already under way when
    /// the block arrived) is closed before anything is exchanged. Returns whether to go on.
    func admitOpened(_ session: PeerSession) -> Bool {
        guard blockList.contains(session.remote) else { return true }
        logger.info("closing session with \(session.remote.shortHex): blocked")
        session.close(reason: .sessionRefused)
        return false
    }

    /// Trust on first use: a new key that claims a name another key already has here (or
    /// one that looks like a key) is kept apart under a distinct name, and the person running
    /// the node is told. Both names are quoted and escaped: they came from the network.
    func warnNameClaim(_ id: NodeID, holder: NodeID) {
        let peer = try? local.store.peer(id)
        let claimed = TextSanitizer.quoted(peer?.claimedName ?? "")
        let name = TextSanitizer.quoted(peer?.name ?? id.shortHex)
        let whose =
            switch holder {
            case me: "this node's own name"
            case id: "a name that looks like a key"
            default: "the name of \(holder.shortHex)"
            }
        let advice = "compare safety numbers before trusting it (confab verify \(id.shortHex))"
        let message =
            "new key \(id.shortHex) introduced itself as \(claimed), \(whose); kept apart as \(name) — \(advice)"
        logger.warning("\(message)")
    }
}
