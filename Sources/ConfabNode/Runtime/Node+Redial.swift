import ConfabModel
import ConfabStore

extension Node {
    /// Dials every remembered peer that has an address and no session, except those this
    /// node refuses or that refused it lately: what "resync now" promises.
    func redialKnownPeers() {
        for peer in (try? local.store.peers()) ?? [] {
            guard let address = peer.address, peer.trust != .blocked, !avoidsDialing(peer.id),
                hasNoSession(with: peer.id), let target = try? StaticPeer("\(peer.id.hex)@\(address)")
            else { continue }
            logger.debug("resync: dialling \(peer.id.shortHex) at \(address)")
            dial(host: target.host, port: target.port, remote: peer.id)
        }
    }
}
