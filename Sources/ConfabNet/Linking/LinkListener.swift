import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOCore
import NIOPosix

/// The offer's TCP listener (Protocol.md §20.10): the server half of the handshake under
/// the code's network key and the offer's key, each connection reported as an attempt.
public final class LinkListener: Sendable {
    public let port: Int
    public let attempts: AsyncStream<LinkAttempt>
    private let channel: any Channel
    private let continuation: AsyncStream<LinkAttempt>.Continuation

    private init(
        channel: any Channel, attempts: AsyncStream<LinkAttempt>, continuation: AsyncStream<LinkAttempt>.Continuation
    ) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
        self.attempts = attempts
        self.continuation = continuation
    }

    public static func listen(
        host: String, port: Int, identity: SigningKeyPair, networkKey: NetworkKey, group: any EventLoopGroup,
        handshakeTimeout: TimeAmount = .seconds(10), maxMessageBytes: Int
    ) async throws -> LinkListener {
        let (attempts, continuation) = AsyncStream.makeStream(of: LinkAttempt.self)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try LinkConnection.install(
                        on: child, role: .server, identity: identity, networkKey: networkKey,
                        timeout: handshakeTimeout, maxMessageBytes: maxMessageBytes
                    ).whenComplete { result in
                        switch result {
                        case .success(let connection):
                            continuation.yield(.connected(connection))
                        case .failure(let error as SecretHandshakeError):
                            continuation.yield(.refused("\(error)"))
                        case .failure(let error):
                            continuation.yield(.abandoned("\(error)"))
                        }
                    }
                }
            }
            .bind(host: host, port: port).get()
        return LinkListener(channel: channel, attempts: attempts, continuation: continuation)
    }

    public func close() async {
        try? await channel.close()
        continuation.finish()
    }
}
