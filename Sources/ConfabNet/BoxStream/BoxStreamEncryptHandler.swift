import ConfabCrypto
import NIOCore

/// Encrypts outbound bytes as box-stream frames (Protocol.md §3.8) and ends the stream
/// with a goodbye when the channel is closed.
///
/// Writes are collected until the next flush and sealed together, so a batch of small
/// session messages costs one frame per 4096 bytes rather than one frame each.
///
/// No goodbye is sent once an error has come up from below (the transport or the
/// box-stream reader): the stream is then broken, and the protocol demands closing without
/// another byte (§3.10). Errors raised further up, by the session layers, leave the stream
/// intact, so their close still ends it cleanly.
final class BoxStreamEncryptHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var encryptor: BoxStreamEncryptor
    private var pending = ByteBuffer()
    private var pendingPromises: [EventLoopPromise<Void>] = []
    private var brokenBelow = false

    init(encryptor: BoxStreamEncryptor) {
        self.encryptor = encryptor
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        brokenBelow = true
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !encryptor.isClosed else {
            promise?.fail(BoxStreamError.streamClosed)
            return
        }
        var bytes = Self.unwrapOutboundIn(data)
        pending.writeBuffer(&bytes)
        if let promise { pendingPromises.append(promise) }
    }

    func flush(context: ChannelHandlerContext) {
        sealPending(context: context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode != .input, !encryptor.isClosed, !brokenBelow, context.channel.isActive {
            sealPending(context: context)
            if let goodbye = try? encryptor.goodbye() {
                context.write(Self.wrapOutboundOut(context.channel.allocator.buffer(bytes: goodbye)), promise: nil)
            }
            context.flush()
        }
        failPending(BoxStreamError.streamClosed)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failPending(ChannelError.ioOnClosedChannel)
    }

    private func sealPending(context: ChannelHandlerContext) {
        guard pending.readableBytes > 0 else {
            // Only empty writes are waiting: there is nothing to seal, and they are done.
            let promises = pendingPromises
            pendingPromises = []
            for promise in promises { promise.succeed() }
            return
        }
        let promises = pendingPromises
        pendingPromises = []
        // Sealed straight from what is pending into the buffer the socket is given.
        let length = BoxStream.sealedLength(of: pending.readableBytes)
        var sealed = context.channel.allocator.buffer(capacity: length)
        do {
            try pending.withUnsafeReadableBytes { plaintext in
                _ = try sealed.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { out in
                    try encryptor.encrypt(plaintext, into: out)
                }
            }
        } catch {
            pending.clear()
            for promise in promises { promise.fail(error) }
            return
        }
        pending.clear()
        var combined: EventLoopPromise<Void>?
        if !promises.isEmpty {
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { result in
                for waiting in promises { waiting.completeWith(result) }
            }
            combined = promise
        }
        context.write(Self.wrapOutboundOut(sealed), promise: combined)
    }

    private func failPending(_ error: any Error) {
        pending.clear()
        let promises = pendingPromises
        pendingPromises = []
        for promise in promises { promise.fail(error) }
    }
}
