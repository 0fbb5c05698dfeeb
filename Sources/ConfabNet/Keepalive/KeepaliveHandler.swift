import ConfabWire
import NIOCore

/// Keeps a quiet session provably alive, and ends one whose peer has gone.
///
/// After `pingInterval` (less a random part of a fifth) without anything written it sends a Ping; it answers a Ping with a
/// Pong carrying the same nonce; it swallows both, so the layers above never see them.
/// While the channel is not writable (the peer is not taking what it is sent) no Pong is
/// written: only the latest Ping is answered once it is writable again, so a peer that
/// floods Pings and reads nothing cannot make the node queue a Pong for each. When nothing
/// at all has been read for `deadPeerTimeout` (a live peer pings at least every
/// `pingInterval`) it fires `SessionError.peerSilent` and closes the channel.
///
/// The clocks start with `SecretHandshakeCompleted`: before that the handshake's own
/// timeout applies and nothing may be written.
final class KeepaliveHandler: ChannelDuplexHandler {
    typealias InboundIn = SessionMessage
    typealias InboundOut = SessionMessage
    typealias OutboundIn = SessionMessage
    typealias OutboundOut = SessionMessage

    private let pingInterval: TimeAmount
    private let deadPeerTimeout: TimeAmount
    private var armed = false
    private var lastRead = NIODeadline.uptimeNanoseconds(0)
    private var lastWrite = NIODeadline.uptimeNanoseconds(0)
    private var pingTimer: Scheduled<Void>?
    private var silenceTimer: Scheduled<Void>?
    private var unansweredPing: UInt64?

    init(pingInterval: TimeAmount, deadPeerTimeout: TimeAmount) {
        self.pingInterval = pingInterval
        self.deadPeerTimeout = deadPeerTimeout
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is SecretHandshakeCompleted { arm(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastRead = context.eventLoop.now
        switch Self.unwrapInboundIn(data) {
        case .ping(let nonce):
            guard context.channel.isWritable else {
                unansweredPing = nonce
                return
            }
            pong(nonce, context: context)
        case .pong:
            break
        case .hello, .clocks, .request, .entries, .want, .bye, .forkProof, .typing, .rooms, .prune, .fileWant,
            .fileManifest, .fileChunk, .fileHave:
            context.fireChannelRead(data)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let nonce = unansweredPing {
            unansweredPing = nil
            pong(nonce, context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lastWrite = context.eventLoop.now
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    private func pong(_ nonce: UInt64, context: ChannelHandlerContext) {
        lastWrite = context.eventLoop.now
        context.writeAndFlush(Self.wrapOutboundOut(.pong(nonce)), promise: nil)
    }

    private func arm(context: ChannelHandlerContext) {
        guard !armed, context.channel.isActive else { return }
        armed = true
        lastRead = context.eventLoop.now
        lastWrite = context.eventLoop.now
        drawPingDelay()
        schedulePing(context: context)
        scheduleSilenceCheck(context: context)
    }

    private func disarm() {
        armed = false
        pingTimer?.cancel()
        pingTimer = nil
        silenceTimer?.cancel()
        silenceTimer = nil
    }

    /// How long after the last write the next Ping goes: a random part of the last fifth
    /// of the interval. Both sides of a quiet session started their clocks together, and with
    /// one fixed interval both pinged and both answered every interval; now one side's Ping
    /// usually arrives first, its Pong is the other side's write, and a quiet session costs
    /// one Ping and one Pong per interval, not two of each.
    private var pingDelay = TimeAmount.zero

    private func drawPingDelay() {
        let nanoseconds = pingInterval.nanoseconds
        pingDelay = .nanoseconds(Int64.random(in: (nanoseconds * 4 / 5)...nanoseconds))
    }

    // Each timer re-checks against the latest activity rather than being reset on every
    // message, so busy sessions cost no timer churn.
    private func schedulePing(context: ChannelHandlerContext) {
        pingTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: lastWrite + pingDelay) {
            guard self.armed else { return }
            if context.eventLoop.now >= self.lastWrite + self.pingDelay {
                self.drawPingDelay()
                self.lastWrite = context.eventLoop.now
                context.writeAndFlush(Self.wrapOutboundOut(.ping(UInt64.random(in: .min ... .max))), promise: nil)
            }
            self.schedulePing(context: context)
        }
    }

    private func scheduleSilenceCheck(context: ChannelHandlerContext) {
        silenceTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: lastRead + deadPeerTimeout) {
            guard self.armed else { return }
            guard context.eventLoop.now >= self.lastRead + self.deadPeerTimeout else {
                self.scheduleSilenceCheck(context: context)
                return
            }
            self.disarm()
            context.fireErrorCaught(SessionError.peerSilent(for: self.deadPeerTimeout))
            context.close(promise: nil)
        }
    }
}
