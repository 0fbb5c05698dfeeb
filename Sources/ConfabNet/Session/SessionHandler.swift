import ConfabModel
import ConfabWire
import Logging
import NIOCore

/// The end of a session's pipeline: turns a connection into a `PeerSession`, applies the
/// one-session-per-peer rule, and reports to the delegate.
///
/// It is also where every error of the connection ends up: each is logged with the peer's
/// address and the reason, and the channel is closed. An error after an orderly end
/// (a reset following the goodbye, say) changes nothing and is logged at debug level.
final class SessionHandler: ChannelInboundHandler {
    typealias InboundIn = SessionMessage
    typealias OutboundOut = SessionMessage

    private enum Phase {
        case handshaking
        /// Kept, but announced only once the session it replaced has reported its close,
        /// so the delegate never sees two open sessions with one peer.
        case waiting(PeerSession, buffered: [SessionMessage], bytes: Int)
        case open(PeerSession)
        /// Lost the duplicate rule or was refused; never announced, so never reported closed.
        case dropped
        case closed
    }

    /// Messages that may arrive while a replaced session is closing; more means the
    /// close is stuck and this session is not worth keeping. Counted in bytes too, since
    /// 1024 messages may each be 1 MiB.
    private static let maxBufferedMessages = 1024
    private static let maxBufferedBytes = 8 << 20

    private let core: SessionCore
    private let connectionID: UInt64
    private let isInitiator: Bool
    private var dialPromise: EventLoopPromise<PeerSession>?
    private var phase = Phase.handshaking
    /// Set when either side ended the session on purpose; errors after that are noise.
    private var endedInOrder = false
    private var firstError: (any Error)?
    private var context: ChannelHandlerContext?
    private var logger: Logger
    /// What the delegate has not consumed yet, when it consumes later (`inboxLimit`).
    let inbox: SessionInbox?

    init(
        core: SessionCore, connectionID: UInt64, isInitiator: Bool, dialPromise: EventLoopPromise<PeerSession>?
    ) {
        self.core = core
        self.connectionID = connectionID
        self.isInitiator = isInitiator
        self.dialPromise = dialPromise
        self.logger = core.configuration.logger
        self.inbox = core.configuration.inboxLimit.map { SessionInbox(limit: $0, pool: core.configuration.inboxPool) }
        logger[metadataKey: "connection"] = "\(connectionID)"
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        noteRemoteAddress(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        dialPromise?.fail(firstError ?? SessionError.handshakeInterrupted)
        dialPromise = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        noteRemoteAddress(context: context)
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let completed as SecretHandshakeCompleted:
            handshakeCompleted(remote: completed.remote, context: context)
        case is BoxStreamGoodbyeReceived:
            endedInOrder = true
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = Self.unwrapInboundIn(data)
        switch phase {
        case .open(let session):
            deliver(message, on: session, context: context)
        case .waiting(let session, var buffered, let bytes):
            let size = message.approximateBytes
            guard buffered.count < Self.maxBufferedMessages, bytes + size <= Self.maxBufferedBytes else {
                logger.warning("closing session: too much arrived while the replaced session closes")
                phase = .dropped
                context.close(promise: nil)
                return
            }
            buffered.append(message)
            phase = .waiting(session, buffered: buffered, bytes: bytes + size)
        case .handshaking, .dropped, .closed:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if endedInOrder || firstError != nil {
            logger.debug("error after the session ended", metadata: ["reason": "\(error)"])
        } else {
            firstError = error
            let stage = if case .handshaking = phase { "handshake failed" } else { "session failed" }
            // A refused key redials at every beacon; one line per attempt is for debugging only.
            let level: Logger.Level = (error as? SessionError)?.isRefusal == true ? .debug : .info
            logger.log(level: level, "closing connection: \(stage)", metadata: ["reason": "\(error)"])
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let previous = phase
        phase = .closed
        switch previous {
        case .handshaking:
            core.record { $0.handshakeFailures += 1 }
            dialPromise?.fail(firstError ?? SessionError.handshakeInterrupted)
            dialPromise = nil
        case .open(let session):
            core.unregister(session)
            // An error recorded before the end counts even if a goodbye slipped in after it.
            let error: (any Error)? = firstError ?? (endedInOrder ? nil : SessionError.connectionLost)
            if error != nil { core.record { $0.failed += 1 } }
            logger.debug("session closed", metadata: ["reason": "\(error.map { "\($0)" } ?? "orderly")"])
            core.delegate?.sessionDidClose(session, error: error)
        case .waiting(let session, _, _):
            core.unregister(session)
        case .dropped, .closed:
            break
        }
        context.fireChannelInactive()
    }

    // MARK: Operations from PeerSession (on the event loop)

    func send(_ messages: [SessionMessage]) {
        guard let context, !endedInOrder else { return }
        switch phase {
        case .open, .waiting:
            for message in messages {
                context.write(Self.wrapOutboundOut(message), promise: nil)
            }
            context.flush()
            if !messages.isEmpty { core.record { $0.messagesSent += messages.count } }
        case .handshaking, .dropped, .closed:
            logger.debug("not sending on a session that is not open", metadata: ["count": "\(messages.count)"])
        }
    }

    func closeGracefully(reason: ByeReason) {
        guard let context else { return }
        switch phase {
        case .open, .waiting:
            guard !endedInOrder else { return }
            endedInOrder = true
            logger.debug("closing session", metadata: ["reason": "\(reason)"])
            context.writeAndFlush(Self.wrapOutboundOut(.bye(reason)), promise: nil)
            context.close(promise: nil)
        case .handshaking, .dropped:
            context.close(promise: nil)
        case .closed:
            break
        }
    }

    // MARK: Private

    private func noteRemoteAddress(context: ChannelHandlerContext) {
        if let address = context.channel.remoteAddress {
            logger[metadataKey: "peer"] = "\(address)"
        }
    }

    private func handshakeCompleted(remote: NodeID, context: ChannelHandlerContext) {
        guard case .handshaking = phase else { return }
        logger[metadataKey: "node"] = "\(remote.shortHex)"
        guard remote != core.localNode else {
            phase = .dropped
            firstError = SessionError.connectedToSelf
            logger.info("closing connection", metadata: ["reason": "\(SessionError.connectedToSelf)"])
            dialPromise?.fail(SessionError.connectedToSelf)
            dialPromise = nil
            context.close(promise: nil)
            return
        }
        let session = PeerSession(
            id: connectionID, remote: remote, isInitiator: isInitiator, channel: context.channel,
            handler: NIOLoopBound(self, eventLoop: context.eventLoop), inbox: inbox)
        let decision = core.register(session)
        switch decision {
        case .kept:
            announce(session, context: context)
        case .replacing(let old):
            logger.debug("replacing duplicate session", metadata: ["replaced": "\(old.id)"])
            phase = .waiting(session, buffered: [], bytes: 0)
            old.close(reason: .duplicateSession)
            old.closeFuture.hop(to: context.eventLoop).assumeIsolated().whenComplete { _ in
                guard case .waiting(let waiting, let buffered, _) = self.phase, waiting === session else { return }
                self.announce(session, buffered: buffered, context: context)
            }
        case .evicting(let victim):
            logger.info(
                "session limit reached: closing the oldest session with an unknown key",
                metadata: ["closing": "\(victim)"])
            victim.close(reason: .sessionLimit)
            announce(session, context: context)
        case .duplicate(let winner):
            logger.debug("closing duplicate session", metadata: ["kept": "\(winner.id)"])
            phase = .dropped
            endedInOrder = true
            context.writeAndFlush(Self.wrapOutboundOut(.bye(.duplicateSession)), promise: nil)
            context.close(promise: nil)
            // If the kept session is a stale connection (the peer restarted), this makes it
            // fail now, so the peer's next dial succeeds.
            winner.probe()
        case .refused(let error):
            phase = .dropped
            firstError = error
            logger.info("closing connection", metadata: ["reason": "\(error)"])
            context.close(promise: nil)
        }
        switch decision {
        case .kept, .replacing, .evicting:
            dialPromise?.succeed(session)
        case .duplicate(let winner):
            dialPromise?.succeed(winner)
        case .refused(let error):
            dialPromise?.fail(error)
        }
        dialPromise = nil
    }

    private func announce(_ session: PeerSession, buffered: [SessionMessage] = [], context: ChannelHandlerContext) {
        phase = .open(session)
        core.record { $0.opened += 1 }
        logger.debug("session open", metadata: ["initiator": "\(isInitiator)"])
        core.delegate?.sessionDidOpen(session)
        for message in buffered {
            guard case .open = phase else { return }
            deliver(message, on: session, context: context)
        }
    }

    private func deliver(_ message: SessionMessage, on session: PeerSession, context: ChannelHandlerContext) {
        core.record { $0.messagesReceived += 1 }
        inbox?.delivered(message)
        core.delegate?.session(session, didReceive: message)
        if case .bye(let reason) = message {
            // The peer's own text: quoted and escaped so it cannot forge a log line.
            logger.debug("peer said bye", metadata: ["reason": "\(TextSanitizer.quoted(reason.rawValue))"])
            endedInOrder = true
            context.close(promise: nil)
        }
    }
}
