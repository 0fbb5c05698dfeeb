import ConfabCrypto
import ConfabModel
import ConfabWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import ConfabNet

/// Runs `body` with a fresh two-thread event loop group, and shuts the group down whatever
/// happens, so a failing test does not leave threads behind.
func withEventLoopGroup<T>(_ body: (MultiThreadedEventLoopGroup) async throws -> T) async throws -> T {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    do {
        let result = try await body(group)
        try await group.shutdownGracefully()
        return result
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
}

/// A session service with its delegate and logs, listening on 127.0.0.1 at a free port.
struct TestNode {
    let keys: SigningKeyPair
    let service: SessionService
    let delegate: RecordingDelegate
    let logs: LogCapture
    let port: Int

    var id: NodeID { keys.id }

    static func start(
        _ keys: SigningKeyPair, group: any EventLoopGroup, networkKey: NetworkKey = .default,
        configure: (inout SessionConfiguration) -> Void = { _ in }
    ) async throws -> TestNode {
        let logs = LogCapture()
        var configuration = SessionConfiguration(
            identity: keys, networkKey: networkKey, logger: logs.logger("node-\(keys.id.shortHex)"))
        configure(&configuration)
        let delegate = RecordingDelegate()
        let service = SessionService(configuration: configuration, group: group, delegate: delegate)
        let address = try await service.listen(host: "127.0.0.1", port: 0)
        return TestNode(keys: keys, service: service, delegate: delegate, logs: logs, port: address.port!)
    }

    func dial(_ other: TestNode) async throws -> PeerSession {
        let service = self.service
        return try await withTimeout("dial") {
            try await service.dial(host: "127.0.0.1", port: other.port, remote: other.id)
        }
    }

    func shutdown() async throws {
        let service = self.service
        try await withTimeout("shutdown") { await service.shutdown() }
    }
}

/// What a hand-made test connection saw, readable from the test's thread.
final class ConnectionLog: Sendable {
    fileprivate struct State {
        var handshakeCompleted = false
        var goodbyeReceived = false
        var bytes: [UInt8] = []
        var errors: [String] = []
        var closed = false
    }

    private let state = NIOLockedValueBox(State())

    var handshakeCompleted: Bool { state.withLockedValue { $0.handshakeCompleted } }
    var goodbyeReceived: Bool { state.withLockedValue { $0.goodbyeReceived } }
    var bytes: [UInt8] { state.withLockedValue { $0.bytes } }
    var closed: Bool { state.withLockedValue { $0.closed } }

    fileprivate func update(_ change: (inout State) -> Void) {
        state.withLockedValue(change)
    }

    /// The handler at the end of a hand-made connection's pipeline.
    final class Tail: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let log: ConnectionLog

        init(_ log: ConnectionLog) { self.log = log }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is SecretHandshakeCompleted { log.update { $0.handshakeCompleted = true } }
            if event is BoxStreamGoodbyeReceived { log.update { $0.goodbyeReceived = true } }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = Self.unwrapInboundIn(data)
            log.update { $0.bytes += buffer.readableBytesView }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            log.update { $0.errors.append("\(error)") }
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            log.update { $0.closed = true }
        }
    }
}

/// A TCP connection to 127.0.0.1:`port` that speaks only what the test makes it say. With
/// `handshakeAs`, it runs the client side of the handshake and then nothing else: no
/// framing, no keepalive, so the test writes raw plaintext into the box-stream. With
/// `from`, the connection leaves from that loopback address (any of 127.0.0.0/8 on Linux),
/// so a test can play several hosts.
func connectByHand(
    group: any EventLoopGroup, port: Int, handshakeAs identity: SigningKeyPair? = nil, server: NodeID? = nil,
    from source: String? = nil
) async throws -> (any Channel, ConnectionLog) {
    let log = ConnectionLog()
    var bootstrap = ClientBootstrap(group: group)
    if let source {
        bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0))
    }
    let channel =
        try await bootstrap
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                if let identity, let server {
                    try channel.pipeline.syncOperations.addHandler(
                        SecretHandshakeHandler(
                            role: .client(server: server), identity: identity, networkKey: .default,
                            timeout: .seconds(5)))
                }
                try channel.pipeline.syncOperations.addHandler(ConnectionLog.Tail(log))
            }
        }
        .connect(host: "127.0.0.1", port: port).get()
    return (channel, log)
}

func randomBytes(_ count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255) }
}
