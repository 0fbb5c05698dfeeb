import ConfabClient
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A tiny HTTP server for Prometheus scrapes (`--metrics HOST:PORT`).
final class MetricsServer: Sendable {
    /// Scrapers connected at once; beyond it a new connection is closed at once. Anyone who
    /// can reach the address can connect, so open connections are bounded (and idle ones
    /// dropped after 30 s).
    static let maxConnections = 16

    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    var address: SocketAddress? { channel.localAddress }

    static func start(
        host: String, port: Int, group: any EventLoopGroup, exposition: @escaping @Sendable () -> [UInt8]
    ) async throws -> MetricsServer {
        let open = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                guard
                    open.withLockedValue({ count in
                        guard count < maxConnections else { return false }
                        count += 1
                        return true
                    })
                else { return channel.close() }
                channel.closeFuture.whenComplete { _ in open.withLockedValue { $0 -= 1 } }
                return channel.eventLoop.makeCompletedFuture {
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
