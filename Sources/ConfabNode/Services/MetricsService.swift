import ServiceLifecycle

/// The Prometheus endpoint (`--metrics`), bound when the node started, until shutdown.
struct MetricsService: Service {
    let server: MetricsServer

    func run() async {
        try? await gracefulShutdown()
        await server.stop()
    }
}
