import NIOCore

/// Closes a connection whose peer does not take what is written to it. Each write counts
/// from the moment it reaches the head of the pipeline until the socket has taken it (or it
/// failed); when more than `limit` bytes wait, the session fails with
/// `SessionError.outboundBacklog`. Replies are held back while the channel is not writable,
/// but nothing else stops a peer that never reads from making the node keep everything it
/// writes to it in memory.
final class OutboundBacklogHandler: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limit: Int
    private let core: SessionCore
    private var pending = 0
    private var largest = 0
    private var tripped = false

    init(limit: Int, core: SessionCore) {
        self.limit = limit
        self.core = core
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !tripped else {
            context.write(data, promise: promise)
            return
        }
        let count = Self.unwrapOutboundIn(data).readableBytes
        pending += count
        if pending > largest {
            largest = pending
            core.record { [largest] in $0.largestOutboundBacklog = max($0.largestOutboundBacklog, largest) }
        }
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.assumeIsolated().whenComplete { _ in self.pending -= count }
        context.write(data, promise: written)
        guard pending > limit else { return }
        tripped = true
        core.record { $0.backlogClosed += 1 }
        context.fireErrorCaught(SessionError.outboundBacklog(pending, limit: limit))
        context.close(promise: nil)
    }
}
