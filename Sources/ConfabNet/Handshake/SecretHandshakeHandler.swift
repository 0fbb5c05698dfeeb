import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOCore

/// Runs the secret handshake (Protocol.md §3.2–§3.7) over the first bytes of a connection,
/// then replaces itself with the box-stream handlers, so that every later byte is
/// encrypted and authenticated.
///
/// On success it fires `SecretHandshakeCompleted` and passes on any bytes that arrived
/// behind the last handshake message (the server may start its box-stream right after
/// message 4, in the same segment). On any failure, including the timeouts, it fires the
/// error and closes the connection at once without sending anything more (§3.10).
///
/// Two timers: the whole handshake must complete within `timeout`, and a server also
/// closes a connection whose message 1 has not arrived within `firstMessageTimeout`, since
/// a genuine client sends it at once and a silent one only holds a handshake slot.
final class SecretHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Role {
        /// We dialled and insist on talking to `server`.
        case client(server: NodeID)
        /// We accepted; the client's key is learnt from message 3.
        case server
    }

    private enum State {
        case notStarted
        case clientAwaitingChallenge(SecretHandshakeClient)
        case clientAwaitingAccept(SecretHandshakeClient)
        case serverAwaitingChallenge(SecretHandshakeServer)
        case serverAwaitingAuth(SecretHandshakeServer)
        case completed
        case failed
    }

    private let role: Role
    private let identity: SigningKeyPair
    private let networkKey: NetworkKey
    private let timeout: TimeAmount
    private let firstMessageTimeout: TimeAmount?
    private let refusal: @Sendable (NodeID) -> SessionError?
    private var state = State.notStarted
    private var received: ByteBuffer
    private var timer: Scheduled<Void>?
    private var firstMessageTimer: Scheduled<Void>?

    /// `refusal` is asked once a server has learnt the client's key, before message 4: a
    /// reason refuses the client (nil admits it).
    init(
        role: Role, identity: SigningKeyPair, networkKey: NetworkKey, timeout: TimeAmount,
        firstMessageTimeout: TimeAmount? = nil,
        refusal: @escaping @Sendable (NodeID) -> SessionError? = { _ in nil }
    ) {
        self.role = role
        self.refusal = refusal
        self.firstMessageTimeout = firstMessageTimeout
        self.identity = identity
        self.networkKey = networkKey
        self.timeout = timeout
        self.received = ByteBuffer()
    }

    /// Each message has a fixed length and no prefix, so the state alone says how many
    /// bytes to wait for.
    private var bytesNeeded: Int? {
        switch state {
        case .clientAwaitingChallenge, .serverAwaitingChallenge: return SecretHandshake.challengeLength
        case .clientAwaitingAccept: return SecretHandshake.serverAcceptLength
        case .serverAwaitingAuth: return SecretHandshake.clientAuthLength
        case .notStarted, .completed, .failed: return nil
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(context: context, error: SessionError.handshakeInterrupted)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = Self.unwrapInboundIn(data)
        switch state {
        case .completed:
            // Our removal is under way; whatever slips in belongs to the box-stream.
            context.fireChannelRead(data)
            return
        case .notStarted, .failed:
            return
        case .clientAwaitingChallenge, .clientAwaitingAccept, .serverAwaitingChallenge, .serverAwaitingAuth:
            break
        }
        received.writeBuffer(&bytes)
        while let needed = bytesNeeded, received.readableBytes >= needed {
            let message = received.readBytes(length: needed)!
            do {
                try step(message, context: context)
            } catch {
                fail(context: context, error: error)
                return
            }
        }
        received.discardReadBytes()
    }

    private var isNotStarted: Bool {
        if case .notStarted = state { return true }
        return false
    }

    private func start(context: ChannelHandlerContext) {
        guard isNotStarted else { return }
        let timeout = self.timeout
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.fail(context: context, error: SessionError.handshakeTimedOut(after: timeout))
        }
        if case .server = role, let firstMessageTimeout {
            firstMessageTimer = context.eventLoop.assumeIsolated().scheduleTask(in: firstMessageTimeout) {
                self.fail(context: context, error: SessionError.firstMessageTimedOut(after: firstMessageTimeout))
            }
        }
        do {
            switch role {
            case .client(let server):
                let client = try SecretHandshakeClient(
                    networkKey: networkKey.bytes, keyPair: identity, serverPublicKey: server.signingKey)
                state = .clientAwaitingChallenge(client)
                send(client.challenge, context: context)
            case .server:
                state = .serverAwaitingChallenge(
                    try SecretHandshakeServer(networkKey: networkKey.bytes, keyPair: identity))
            }
        } catch {
            fail(context: context, error: error)
        }
    }

    private func step(_ message: [UInt8], context: ChannelHandlerContext) throws {
        switch state {
        case .clientAwaitingChallenge(var client):
            let auth = try client.receiveServerChallenge(message)
            state = .clientAwaitingAccept(client)
            send(auth, context: context)
        case .clientAwaitingAccept(var client):
            complete(with: try client.receiveServerAccept(message), context: context)
        case .serverAwaitingChallenge(var server):
            let challenge = try server.receiveClientChallenge(message)
            firstMessageTimer?.cancel()
            firstMessageTimer = nil
            state = .serverAwaitingAuth(server)
            send(challenge, context: context)
        case .serverAwaitingAuth(var server):
            let (accept, outcome) = try server.receiveClientAuth(message)
            let client = NodeID(outcome.remotePublicKey)
            if let refusal = refusal(client) { throw refusal }
            send(accept, context: context)
            complete(with: outcome, context: context)
        case .notStarted, .completed, .failed:
            break
        }
    }

    private func send(_ bytes: [UInt8], context: ChannelHandlerContext) {
        context.writeAndFlush(Self.wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    private func complete(with outcome: SecretHandshakeOutcome, context: ChannelHandlerContext) {
        cancelTimers()
        do {
            let decryptor = try BoxStreamDecryptor(outcome: outcome)
            let encryptor = try BoxStreamEncryptor(outcome: outcome)
            try context.pipeline.syncOperations.addHandlers(
                [BoxStreamDecryptHandler(decryptor: decryptor), BoxStreamEncryptHandler(encryptor: encryptor)],
                position: .after(self))
        } catch {
            fail(context: context, error: error)
            return
        }
        state = .completed
        context.fireUserInboundEventTriggered(
            SecretHandshakeCompleted(
                remote: NodeID(outcome.remotePublicKey), transcriptHash: outcome.transcriptHash))
        if received.readableBytes > 0 {
            let rest = received
            received = ByteBuffer()
            context.fireChannelRead(Self.wrapInboundOut(rest))
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func fail(context: ChannelHandlerContext, error: any Error) {
        switch state {
        case .completed, .failed:
            return
        case .notStarted, .clientAwaitingChallenge, .clientAwaitingAccept, .serverAwaitingChallenge,
            .serverAwaitingAuth:
            state = .failed
        }
        cancelTimers()
        received.clear()
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func cancelTimers() {
        timer?.cancel()
        timer = nil
        firstMessageTimer?.cancel()
        firstMessageTimer = nil
    }
}
