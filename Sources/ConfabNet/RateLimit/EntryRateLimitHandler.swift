import ConfabModel
import ConfabWire
import Logging
import NIOCore

/// Slows a peer that sends entries faster than its rate. Each Entries message takes one
/// token per entry from the peer's bucket before it goes on; while the bucket is in debt,
/// messages wait here in order (whatever their kind, so a Clocks or Bye never overtakes
/// the entries before it). Nothing is dropped or refused: the sender simply sees its
/// entries acknowledged later.
///
/// Reading goes on while messages wait, so Pings and Pongs keep the session alive, up to
/// `maxHeldEntries`, `maxHeldMessages` or `maxHeldBytes` (whichever comes first; every held
/// message counts, whatever its kind, so neither the largest entries nor a stream of
/// Clocks behind one Entries message can make us hold more than a few megabytes); beyond
/// that reads stop and TCP pushes back on the sender. (An honest
/// sender keeps at most its flow-control window in flight, so that only bites a peer that
/// ignores acknowledgements or has very many logs to send at once.)
final class EntryRateLimitHandler: ChannelInboundHandler, ChannelOutboundHandler {
    typealias InboundIn = SessionMessage
    typealias InboundOut = SessionMessage
    typealias OutboundIn = SessionMessage
    typealias OutboundOut = SessionMessage

    static let maxHeldEntries = 4096
    static let maxHeldMessages = 1024
    static let maxHeldBytes = 4 << 20

    private let limiter: EntryRateLimiter
    private var logger: Logger
    private var peer: NodeID?
    private var held: [SessionMessage] = []
    private var heldEntries = 0
    private var heldBytes = 0
    private var release: Scheduled<Void>?
    private var readPending = false
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
        let message = Self.unwrapInboundIn(data)
        if held.isEmpty, pass(message, context: context) { return }
        held.append(message)
        heldEntries += message.entryCount
        heldBytes += message.approximateBytes
        scheduleRelease(context: context)
    }

    private var mayRead: Bool {
        heldEntries < Self.maxHeldEntries && held.count < Self.maxHeldMessages && heldBytes < Self.maxHeldBytes
    }

    func read(context: ChannelHandlerContext) {
        guard mayRead else {
            readPending = true
            return
        }
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The sender was not acknowledged for what is still held; it offers it again later.
        release?.cancel()
        held = []
        heldEntries = 0
        heldBytes = 0
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release?.cancel()
    }

    /// Forwards `message` if the peer's bucket is not in debt (taking its tokens); false
    /// when it must wait.
    private func pass(_ message: SessionMessage, context: ChannelHandlerContext) -> Bool {
        let count = message.entryCount
        guard let peer, count > 0 else {
            context.fireChannelRead(Self.wrapInboundOut(message))
            return true
        }
        guard limiter.wait(for: peer, now: context.eventLoop.now) == .zero else { return false }
        _ = limiter.take(count, from: peer, now: context.eventLoop.now)
        context.fireChannelRead(Self.wrapInboundOut(message))
        return true
    }

    private func scheduleRelease(context: ChannelHandlerContext) {
        guard release == nil, let peer else { return }
        let wait = max(limiter.wait(for: peer, now: context.eventLoop.now), .milliseconds(1))
        limiter.notePause()
        if !warned {
            warned = true
            logger.notice(
                "peer over its rate: its entries are taken more slowly (it keeps them queued meanwhile)",
                metadata: [
                    "event": "rate_limited", "wait_ms": "\(wait.nanoseconds / 1_000_000)",
                    "rate": "\(limiter.entriesPerSecond)", "burst": "\(limiter.burst)",
                ])
        }
        release = context.eventLoop.assumeIsolated().scheduleTask(in: wait) {
            self.release = nil
            self.drain(context: context)
        }
    }

    private func drain(context: ChannelHandlerContext) {
        while let next = held.first, pass(next, context: context) {
            held.removeFirst()
            heldEntries -= next.entryCount
            heldBytes -= next.approximateBytes
        }
        if !held.isEmpty { scheduleRelease(context: context) }
        if readPending, mayRead {
            readPending = false
            context.read()
        }
    }
}

extension SessionMessage {
    fileprivate var entryCount: Int {
        if case .entries(let entries) = self { return entries.count }
        return 0
    }
}
