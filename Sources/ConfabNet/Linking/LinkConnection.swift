import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOCore

/// One link connection after its secret handshake (Protocol.md §20.10): who the peer
/// proved to be, the handshake's transcript hash for the words, and length-prefixed
/// messages both ways inside the box-stream.
public final class LinkConnection: Sendable {
    public let remote: NodeID
    public let transcriptHash: [UInt8]
    public let remoteAddress: String?
    private let channel: any Channel
    private let messages: AsyncThrowingStream<[UInt8], any Error>

    init(
        channel: any Channel, completed: SecretHandshakeCompleted, messages: AsyncThrowingStream<[UInt8], any Error>
    ) {
        self.channel = channel
        self.remote = completed.remote
        self.transcriptHash = completed.transcriptHash
        self.remoteAddress = channel.remoteAddress?.hostForDialing
        self.messages = messages
    }

    /// The next message; nil once the peer has closed.
    public func receive() async throws -> [UInt8]? {
        var iterator = messages.makeAsyncIterator()
        return try await iterator.next()
    }

    public func send(_ message: [UInt8]) async throws {
        var buffer = channel.allocator.buffer(capacity: 4 + message.count)
        buffer.writeInteger(UInt32(message.count))
        buffer.writeBytes(message)
        try await channel.writeAndFlush(buffer)
    }

    /// Ends both directions with box-stream goodbyes.
    public func close() async {
        try? await channel.close()
    }

    /// Installs the handshake and the link framing on a new channel; the future completes
    /// with the connection once the handshake has.
    static func install(
        on channel: any Channel, role: SecretHandshakeHandler.Role, identity: SigningKeyPair, networkKey: NetworkKey,
        timeout: TimeAmount, maxMessageBytes: Int
    ) throws -> EventLoopFuture<LinkConnection> {
        let handshake = channel.eventLoop.makePromise(of: SecretHandshakeCompleted.self)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        try channel.pipeline.syncOperations.addHandlers([
            SecretHandshakeHandler(
                role: role, identity: identity, networkKey: networkKey, timeout: timeout, firstMessageTimeout: timeout),
            LinkFrameHandler(handshake: handshake, messages: continuation, maxMessageBytes: maxMessageBytes),
        ])
        return handshake.futureResult.map { LinkConnection(channel: channel, completed: $0, messages: stream) }
    }
}
