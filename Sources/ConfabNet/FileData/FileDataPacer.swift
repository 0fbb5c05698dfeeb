import ConfabWire
import NIOCore

/// Sends file data behind everything else (Protocol.md §17.5). File chunks and manifests
/// wait in a queue of their own and go down the pipeline only while less than
/// `inFlightLimit` bytes of file data are written and not yet taken by the socket; every
/// other message passes at once. A chat message written during a transfer is then sent
/// before any file data still queued, and waits at most for what is already in flight.
///
/// The queue holds what peers asked for; one that asks for far more than it reads (more
/// than `queueLimit` bytes waiting) is closed, as the outbound backlog would close it.
final class FileDataPacer: ChannelOutboundHandler {
    typealias OutboundIn = SessionMessage
    typealias OutboundOut = SessionMessage

    private let inFlightLimit: Int
    private let queueLimit: Int
    private var queue: [(message: SessionMessage, bytes: Int, promise: EventLoopPromise<Void>?)] = []
    private var head = 0
    private var queuedBytes = 0
    private var inFlight = 0
    private var tripped = false

    init(inFlightLimit: Int, queueLimit: Int) {
        self.inFlightLimit = inFlightLimit
        self.queueLimit = queueLimit
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let message = Self.unwrapOutboundIn(data)
        guard message.isFileData, !tripped else {
            context.write(data, promise: promise)
            return
        }
        let bytes = message.approximateBytes
        queue.append((message, bytes, promise))
        queuedBytes += bytes
        guard queuedBytes <= queueLimit else {
            tripped = true
            let error = SessionError.outboundBacklog(queuedBytes, limit: queueLimit)
            failQueued(error)
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
    }

    func flush(context: ChannelHandlerContext) {
        release(context: context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode != .input { failQueued(ChannelError.ioOnClosedChannel) }
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failQueued(ChannelError.ioOnClosedChannel)
    }

    /// Writes queued file data while the socket keeps up; each write, once taken, makes
    /// room for the next.
    private func release(context: ChannelHandlerContext) {
        while head < queue.count, inFlight < inFlightLimit {
            let item = queue[head]
            queue[head] = (.ping(0), 0, nil)
            head += 1
            queuedBytes -= item.bytes
            inFlight += item.bytes
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { result in
                self.inFlight -= item.bytes
                switch result {
                case .success: item.promise?.succeed()
                case .failure(let error): item.promise?.fail(error)
                }
                guard !self.tripped, self.head < self.queue.count else { return }
                self.release(context: context)
                context.flush()
            }
            context.write(Self.wrapOutboundOut(item.message), promise: written)
        }
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 {
            queue.removeFirst(head)
            head = 0
        }
    }

    private func failQueued(_ error: any Error) {
        let pending = queue[head...]
        queue = []
        head = 0
        queuedBytes = 0
        for item in pending { item.promise?.fail(error) }
    }
}
