import Logging
import ServiceLifecycle

/// The Prometheus endpoint (`--metrics`), bound when the node started, until shutdown.
struct MetricsService: Service {
    let server: MetricsServer
    let logger: Logger
    /// Where it serves, announced once the node runs: the group traps SIGTERM before its
    /// services start, so a supervisor that waits for this line and then stops the node
    /// gets a clean stop (announced while binding, a SIGTERM could come before the trap).
    let address: String

    func run() async {
        logger.info("metrics at http://\(address)/metrics", metadata: ["event": "metrics_listening"])
        try? await gracefulShutdown()
        await server.stop()
    }
}
