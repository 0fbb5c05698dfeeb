import ConfabWire
import NIOCore

/// Keeps a quiet session provably alive, and ends one whose peer has gone.
///
/// After `pingInterval` (less a random part of a fifth) without anything written it sends a
/// Ping, or after all of it when its last write answered the peer's Ping; it answers a Ping
/// with a Pong carrying the same nonce; it swallows both, so the layers above never see them.
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
    /// One timer for both the Ping and the silence check: on an office LAN a node holds
    /// twenty quiet sessions, and each timer that fired only to find nothing due was a
    /// wake-up of a process on a shared core.
    private var timer: Scheduled<Void>?
    private var unansweredPing: UInt64?
    /// A Ping of ours not yet answered by a Pong.
    private var awaitingPong = false

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
            awaitingPong = false
        case .hello, .clocks, .request, .entries, .want, .bye, .forkProof, .typing, .rooms, .prune, .deviceList,
            .fileWant, .fileManifest, .fileChunk, .fileHave:
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

    /// The other side pinged first: it keeps the pace, and this side waits the whole
    /// interval before a Ping of its own, which its peer's next Ping (at most four fifths
    /// to all of it later) forestalls. Unless this side's own Ping crossed the peer's: then
    /// each keeps its own draw, and whichever is shorter leads from then on.
    private func pong(_ nonce: UInt64, context: ChannelHandlerContext) {
        lastWrite = context.eventLoop.now
        context.writeAndFlush(Self.wrapOutboundOut(.pong(nonce)), promise: nil)
        guard armed else { return }
        if !awaitingPong { pingDelay = pingInterval }
        schedule(context: context)
    }

    private func arm(context: ChannelHandlerContext) {
        guard !armed, context.channel.isActive else { return }
        armed = true
        lastRead = context.eventLoop.now
        lastWrite = context.eventLoop.now
        drawPingDelay()
        schedule(context: context)
    }

    private func disarm() {
        armed = false
        timer?.cancel()
        timer = nil
    }

    /// How long after the last write the next Ping goes: drawn between four fifths of the
    /// interval and a thirtieth short of it (the whole of it after answering a Ping). Both sides of a quiet session started their clocks together, and with
    /// one fixed interval both pinged and both answered every interval; now one side's Ping
    /// usually arrives first, its Pong is the other side's write, and a quiet session costs
    /// one Ping and one Pong per interval, not two of each.
    private var pingDelay = TimeAmount.zero

    private func drawPingDelay() {
        let nanoseconds = pingInterval.nanoseconds
        pingDelay = .nanoseconds(Int64.random(in: (nanoseconds * 4 / 5)...(nanoseconds * 29 / 30)))
    }

    // The timer re-checks against the latest activity rather than being reset on every
    // message, so busy sessions cost no timer churn; only a Pong moves it.
    private func schedule(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(
            deadline: min(lastWrite + pingDelay, lastRead + deadPeerTimeout)
        ) {
            guard self.armed else { return }
            let now = context.eventLoop.now
            if now >= self.lastRead + self.deadPeerTimeout {
                self.disarm()
                context.fireErrorCaught(SessionError.peerSilent(for: self.deadPeerTimeout))
                context.close(promise: nil)
                return
            }
            if now >= self.lastWrite + self.pingDelay {
                self.drawPingDelay()
                self.lastWrite = now
                self.awaitingPong = true
                context.writeAndFlush(Self.wrapOutboundOut(.ping(UInt64.random(in: .min ... .max))), promise: nil)
            }
            self.schedule(context: context)
        }
    }
}
