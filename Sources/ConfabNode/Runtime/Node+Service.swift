import ConfabClient
import ServiceLifecycle

extension Node: Service {
    /// Runs the node as a service (`confab up`, `confab relay` run it in a `ServiceGroup`,
    /// which turns SIGINT and SIGTERM into a graceful shutdown): started, then stopped
    /// cleanly — goodbyes sent, every task ended — when shutdown is asked for or the
    /// calling task is cancelled.
    public func run() async throws {
        try await start()
        try? await gracefulShutdown()
        logger.info("shutting down")
        await stop()
    }
}
