import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// A tiny HTTP server for Prometheus scrapes (`--metrics HOST:PORT`).
final class MetricsServer: Sendable {
    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    var address: SocketAddress? { channel.localAddress }

    static func start(
        host: String, port: Int, group: any EventLoopGroup, exposition: @escaping @Sendable () -> [UInt8]
    ) async throws -> MetricsServer {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // A scraper that goes quiet is dropped, so idle connections cannot pile up.
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(allTimeout: .seconds(30)))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(exposition: exposition))
                }
            }
            .bind(host: host, port: port).get()
        return MetricsServer(channel: channel)
    }

    func stop() async {
        try? await channel.close()
    }
}
