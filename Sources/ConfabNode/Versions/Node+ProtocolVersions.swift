import ConfabClient
import ConfabModel
import ConfabNet
import ConfabWire

/// Peers whose protocol versions do not overlap this node's (Protocol.md §12.1): told, once,
/// why there is no sync, and not redialled in a loop.
extension Node {
    /// On the peer's Hello: whether its version syncs with ours. When not, the session ends
    /// with a Bye saying why, the log says it once per peer and version, and the person
    /// sees it in `peers`, `status`, `doctor` and the chats (through presence).
    func admitVersion(_ hello: SessionMessage.Hello, of session: PeerSession) -> Bool {
        let compatibility = ProtocolCompatibility(hello)
        if compatibility.syncs {
            incompatiblePeers.clear(session.remote)
            return true
        }
        if incompatiblePeers.record(session.remote, version: hello.version) {
            let name = presence.entries[session.remote]?.name ?? session.remote.shortHex
            logger.warning(
                "\(ProtocolNotice.text(name: TextSanitizer.line(name), compatibility) ?? "incompatible protocol")",
                metadata: [
                    "event": "protocol_incompatible", "peer": "\(session.remote.shortHex)",
                    "version": "\(hello.version)", "oldest": "\(hello.oldestVersion)",
                ])
        }
        operations.incompatibleSessions.insert(session.id)
        session.close(reason: .incompatibleProtocol)
        return false
    }

    /// Whether a session's messages are ignored because its versions do not overlap ours.
    func isIncompatible(_ session: PeerSession) -> Bool { operations.incompatibleSessions.contains(session.id) }

    func forgetIncompatible(_ session: PeerSession) { operations.incompatibleSessions.remove(session.id) }
}
