import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabWire
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a peer can be reached now: a TCP connect and the client half of the secret
/// handshake (Protocol.md §3), then the connection is closed at once, before any Hello.
///
/// It authenticates with a throwaway identity, never the profile's: the peer would take a
/// second session with this node's key as a replacement of the running node's real one.
/// Where the handshake stops tells why it failed: a server with another network key closes
/// after our first message (it cannot verify it); one of our network that is not the key we
/// expect (or that refuses us) closes after our third.
struct HandshakeProbe {
    struct Outcome: Sendable, Equatable {
        var result: DoctorFacts.PeerCheck.Result
        var failure: DoctorFacts.PeerCheck.Failure?
        var detail: String?
        var milliseconds: Int?
    }

    /// A fresh key for each doctor run, thrown away after.
    let identity: SigningKeyPair
    let networkKey: NetworkKey
    /// For the connect, and again for the handshake.
    let timeout: TimeAmount
    let group: any EventLoopGroup

    func probe(host: String, port: Int, remote: NodeID) async -> Outcome {
        let started = ContinuousClock.now
        func elapsed() -> Int {
            let duration = ContinuousClock.now - started
            return Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        }
        let client: SecretHandshakeClient
        do {
            client = try SecretHandshakeClient(
                networkKey: networkKey.bytes, keyPair: identity, serverPublicKey: remote.signingKey)
        } catch {
            return Outcome(result: .handshakeFailed, failure: .otherKey, detail: "\(error)")
        }
        let eventLoop = group.next()
        let done = ProbeHandler.Completion(eventLoop.makePromise(of: ProbeHandler.End.self))
        let timeout = self.timeout
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(timeout)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ProbeHandler(client: client, timeout: timeout, done: done))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            done.finish(.closed(.notConnected))
            let detail = ConnectFailure.describe(error)
            if let error = error as? ChannelError, case .connectTimeout = error {
                return Outcome(result: .timedOut, detail: detail)
            }
            switch ConnectFailure.errno(of: error) {
            case ECONNREFUSED?: return Outcome(result: .refused, detail: detail)
            case ETIMEDOUT?: return Outcome(result: .timedOut, detail: detail)
            default: return Outcome(result: .unreachable, detail: detail)
            }
        }
        let end = (try? await done.promise.futureResult.get()) ?? .closed(.sentChallenge)
        try? await channel.close()
        switch end {
        case .accepted:
            return Outcome(result: .ok, milliseconds: elapsed())
        case .closed(.sentChallenge):
            return Outcome(
                result: .handshakeFailed, failure: .otherNetwork,
                detail: "closed after our first message")
        case .rejected(.sentChallenge, let reason):
            return Outcome(result: .handshakeFailed, failure: .otherNetwork, detail: reason)
        case .closed(.sentAuth):
            return Outcome(result: .handshakeFailed, failure: .otherKey, detail: "closed after our key proof")
        case .rejected(.sentAuth, let reason):
            return Outcome(result: .handshakeFailed, failure: .otherKey, detail: reason)
        case .timedOut(let stage):
            return Outcome(
                result: .handshakeFailed, failure: .noAnswer,
                detail: "no answer \(stage == .sentChallenge ? "to our first message" : "to our key proof") "
                    + "within \(timeout.nanoseconds / 1_000_000) ms")
        case .closed(.notConnected), .rejected(.notConnected, _):
            return Outcome(result: .unreachable, detail: "closed")
        }
    }
}

/// The client half of the handshake, message by message; says how it ended and closes.
private final class ProbeHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Stage: Sendable, Equatable { case notConnected, sentChallenge, sentAuth }

    enum End: Sendable, Equatable {
        case accepted
        /// The server closed the connection.
        case closed(Stage)
        /// The server's answer did not verify.
        case rejected(Stage, String)
        case timedOut(Stage)
    }

    /// Completes the promise once, whoever comes first: a happy-eyeballs connect may try
    /// several addresses, each with its own handler, and the connect may fail outside them.
    final class Completion: Sendable {
        let promise: EventLoopPromise<End>
        private let finished = NIOLockedValueBox(false)

        init(_ promise: EventLoopPromise<End>) {
            self.promise = promise
        }

        func finish(_ end: End) {
            let first = finished.withLockedValue { finished in
                defer { finished = true }
                return !finished
            }
            if first { promise.succeed(end) }
        }
    }

    private var client: SecretHandshakeClient
    private let timeout: TimeAmount
    private let done: Completion
    private var stage = Stage.notConnected
    private var received = ByteBuffer()
    private var timer: Scheduled<Void>?

    init(client: SecretHandshakeClient, timeout: TimeAmount, done: Completion) {
        self.client = client
        self.timeout = timeout
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        stage = .sentChallenge
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.end(.timedOut(self.stage), context: context)
        }
        context.writeAndFlush(
            Self.wrapOutboundOut(context.channel.allocator.buffer(bytes: client.challenge)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = Self.unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        do {
            if stage == .sentChallenge, let challenge = received.readBytes(length: SecretHandshake.challengeLength) {
                let auth = try client.receiveServerChallenge(challenge)
                stage = .sentAuth
                context.writeAndFlush(Self.wrapOutboundOut(context.channel.allocator.buffer(bytes: auth)), promise: nil)
            }
            if stage == .sentAuth, let accept = received.readBytes(length: SecretHandshake.serverAcceptLength) {
                _ = try client.receiveServerAccept(accept)
                end(.accepted, context: context)
            }
        } catch {
            end(.rejected(stage, "\(error)"), context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if stage != .notConnected { end(.closed(stage), context: context) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if stage != .notConnected { end(.closed(stage), context: context) }
    }

    private func end(_ end: End, context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        done.finish(end)
        context.close(promise: nil)
    }
}
