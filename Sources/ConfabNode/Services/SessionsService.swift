import ConfabNet
import ServiceLifecycle

/// Peer sessions, listening since the node bound its port: on shutdown no more dials, and
/// every session ends with a goodbye (a peer marks us gone at once rather than timing out).
struct SessionsService: Service {
    let sessions: SessionService
    let dialer: Dialer

    func run() async {
        try? await gracefulShutdown()
        dialer.cancelAll()
        await sessions.shutdown()
    }
}
