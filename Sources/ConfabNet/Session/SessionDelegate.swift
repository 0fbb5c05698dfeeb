import ConfabWire

/// What a `SessionService` tells its owner.
///
/// Calls for one session come in order on that session's event loop: `sessionDidOpen`,
/// then every message, then `sessionDidClose`. Calls for different sessions may come
/// concurrently from different threads. Implementations must not block.
public protocol SessionDelegate: AnyObject, Sendable {
    /// A session completed its handshake and is the one kept for its peer. When it
    /// replaces an older session to the same peer, that one's `sessionDidClose` comes first.
    func sessionDidOpen(_ session: PeerSession)

    /// A message arrived on an open session. Ping and Pong are answered and consumed by
    /// the network layer and never delivered; Bye is delivered, and the session then closes.
    func session(_ session: PeerSession, didReceive message: SessionMessage)

    /// An open session ended. `error` is nil for an orderly end (either side sent Bye or
    /// goodbye, or the session lost the duplicate rule); otherwise it says what went wrong.
    /// Only sessions reported open are reported closed.
    func sessionDidClose(_ session: PeerSession, error: (any Error)?)
}
