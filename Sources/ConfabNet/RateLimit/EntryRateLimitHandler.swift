import ConfabModel
import ConfabWire
import Logging
import NIOCore

/// Slows a peer that sends entries faster than its rate: each Entries message takes one
/// token per entry from the peer's bucket, and while the bucket is in debt this handler
/// holds back the channel's reads. TCP then pushes back on the sender, which keeps its
/// entries queued; nothing is dropped or refused.
///
/// One pause never lasts longer than `maxPause`, well below the dead-peer timeout, so a
/// paused session is not mistaken for a dead one: after it one read is let through, and a
/// peer still in debt is paused again by what that read brings.
final class EntryRateLimitHandler: ChannelDuplexHandler {
    typealias InboundIn = SessionMessage
    typealias InboundOut = SessionMessage
    typealias OutboundIn = SessionMessage
    typealias OutboundOut = SessionMessage

    static let maxPause = TimeAmount.seconds(10)

    private let limiter: EntryRateLimiter
    private var logger: Logger
    private var peer: NodeID?
    private var pausedUntil: NIODeadline?
    private var readPending = false
    private var resume: Scheduled<Void>?
    private var warned = false

    init(limiter: EntryRateLimiter, logger: Logger) {
        self.limiter = limiter
        self.logger = logger
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let completed = event as? SecretHandshakeCompleted {
            peer = completed.remote
            logger[metadataKey: "node"] = "\(completed.remote.shortHex)"
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let peer, case .entries(let entries) = Self.unwrapInboundIn(data) {
            let wait = limiter.take(entries.count, from: peer, now: context.eventLoop.now)
            if wait > .zero { pause(for: wait, context: context) }
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        guard pausedUntil == nil else {
            readPending = true
            return
        }
        context.read()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        resume?.cancel()
    }

    private func pause(for wait: TimeAmount, context: ChannelHandlerContext) {
        guard pausedUntil == nil else { return }
        let length = min(wait, Self.maxPause)
        limiter.notePause()
        if !warned {
            warned = true
            logger.notice(
                "peer over its rate: reading paused (it keeps its entries queued and sends them later)",
                metadata: [
                    "event": "rate_limited", "pause_ms": "\(length.nanoseconds / 1_000_000)",
                    "rate": "\(limiter.entriesPerSecond)", "burst": "\(limiter.burst)",
                ])
        } else {
            logger.debug("reading paused", metadata: ["pause_ms": "\(length.nanoseconds / 1_000_000)"])
        }
        pausedUntil = context.eventLoop.now + length
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: length) {
            self.pausedUntil = nil
            self.resume = nil
            if self.readPending {
                self.readPending = false
                context.read()
            }
        }
    }
}
