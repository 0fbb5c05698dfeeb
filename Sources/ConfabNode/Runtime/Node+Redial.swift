import ConfabModel
import ConfabStore

extension Node {
    /// Dials every remembered peer that has an address and no session, except those this
    /// node refuses or that refused it lately: what "resync now" promises.
    func redialKnownPeers() {
        for peer in (try? local.store.redialCandidates()) ?? [] {
            guard let address = peer.address, peer.trust != .blocked, !avoidsDialing(peer.id),
                hasNoSession(with: peer.id), let (host, port) = try? StaticPeer.split(address, defaultPort: 7461)
            else { continue }
            logger.debug("resync: dialling \(peer.id.shortHex) at \(address)")
            dial(host: host, port: port, remote: peer.id)
        }
    }
}
