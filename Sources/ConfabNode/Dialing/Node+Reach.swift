import ConfabModel
import ConfabNet

/// Sessions by need (Protocol.md §10.6): whom a node seeks, and a write's people reached at
/// once.
extension Node {
    /// Who counts as chosen and who shares a conversation: re-read every few seconds, and
    /// whenever a write may have changed it.
    func refreshChosenPeers() {
        chosenPeers = Set(((try? local.store.chosenPeers()) ?? []).map(\.id))
        needs.update(
            wanted: chosenPeers.union((try? local.store.fellowParticipants(createdBy: chosenPeers)) ?? []))
        attendBeacons()
    }

    /// The people of conversations just written in that have no session: dialled now, at
    /// the addresses they were met at and where their last beacon said, so that a first
    /// message to someone new goes at once instead of at their next beacon. Of a large
    /// group, only those sought anyway (`SessionNeeds.toReach`).
    func reachParticipants(of conversations: Set<ConversationID>) {
        guard !conversations.isEmpty else { return }
        var peers = Set<NodeID>()
        for conversation in conversations {
            let participants = (try? local.store.participants(of: conversation)) ?? []
            peers.formUnion(needs.toReach(participants, largeGroup: largeGroups.contains(conversation)))
        }
        let now = ContinuousClock.now
        var fresh = false
        for peer in peers.sorted() where peer != me && sessions.session(with: peer) == nil {
            guard !blockList.contains(peer), !avoidsDialing(peer) else { continue }
            if !needs.wanted.contains(peer) { fresh = true }
            guard needs.mayReach(peer, now: now) else { continue }
            let remembered = ((try? local.store.addresses(of: peer)) ?? []).compactMap {
                try? HostPort($0, defaultPort: HostPort.defaultSessionPort)
            }
            let targets = remembered + [needs.hints[peer]].compactMap { $0 }.filter { !remembered.contains($0) }
            guard !targets.isEmpty else { continue }
            logger.debug("a write for \(peer.shortHex): dialling \(targets.map(\.description).joined(separator: ", "))")
            dialer.dial(targets, remote: peer)
        }
        if fresh { refreshChosenPeers() }
    }
}
