import ConfabClient
import ConfabNet
import ConfabStore
import ConfabSync
import ConfabWire
import NIOCore

/// What arrives from the network, in order, and what the chunk writer finished.
enum NodeInput: Sendable {
    case opened(PeerSession)
    /// With an `Entries` message, its entries decoded on the session's event loop.
    case message(PeerSession, SessionMessage, DecodedBatch? = nil)
    case closed(PeerSession, (any Error)?)
    case beacon(Beacon, SocketAddress)
    case chunksWritten([ChunkWrites.Result])
}

/// Turns session callbacks (on NIO threads) into ordered node inputs. The stream itself is
/// unbounded, but each session stops reading while its messages in it are not consumed
/// (`SessionConfiguration.inboxLimit`), or while all sessions' together reach the node's
/// bound (`inboxPool`), so what sessions queue here is bounded per session and in all.
final class SessionBridge: SessionDelegate {
    let continuation: AsyncStream<NodeInput>.Continuation
    let backlog: EntriesBacklog

    init(continuation: AsyncStream<NodeInput>.Continuation, backlog: EntriesBacklog) {
        self.continuation = continuation
        self.backlog = backlog
    }

    func sessionDidOpen(_ session: PeerSession) { continuation.yield(.opened(session)) }
    func session(_ session: PeerSession, didReceive message: SessionMessage) {
        backlog.delivered(message)
        if case .entries(let raw) = message {
            continuation.yield(.message(session, message, DecodedBatch(raw)))
        } else {
            continuation.yield(.message(session, message))
        }
    }
    func sessionDidClose(_ session: PeerSession, error: (any Error)?) { continuation.yield(.closed(session, error)) }
}
