import ConfabCrypto
import ConfabModel
import NIOCore

/// The link dialogue's end of the pipeline (Protocol.md §20.10): waits for the handshake,
/// then cuts the box-stream's plaintext into `u32be(length) ‖ message` frames, refusing a
/// length over the limit before a byte of it is kept, and hands each message to the
/// connection's stream.
final class LinkFrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let handshake: EventLoopPromise<SecretHandshakeCompleted>
    private let messages: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let maxMessageBytes: Int
    private var buffer = ByteBuffer()
    private var handshakeDone = false

    init(
        handshake: EventLoopPromise<SecretHandshakeCompleted>,
        messages: AsyncThrowingStream<[UInt8], any Error>.Continuation, maxMessageBytes: Int
    ) {
        self.handshake = handshake
        self.messages = messages
        self.maxMessageBytes = maxMessageBytes
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let completed = event as? SecretHandshakeCompleted {
            handshakeDone = true
            handshake.succeed(completed)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = Self.unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        while let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) {
            guard Int(length) <= maxMessageBytes, length > 0 else {
                fail(LinkTransportError.oversized(Int(length), limit: maxMessageBytes), context: context)
                return
            }
            guard buffer.readableBytes >= 4 + Int(length) else { break }
            buffer.moveReaderIndex(forwardBy: 4)
            messages.yield(buffer.readBytes(length: Int(length))!)
        }
        buffer.discardReadBytes()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !handshakeDone {
            handshakeDone = true
            handshake.fail(LinkTransportError.closedDuringHandshake)
        }
        messages.finish()
        context.fireChannelInactive()
    }

    /// A channel torn down before it was ever active still answers whoever waits.
    func handlerRemoved(context: ChannelHandlerContext) {
        if !handshakeDone {
            handshakeDone = true
            handshake.fail(LinkTransportError.closedDuringHandshake)
        }
        messages.finish()
    }

    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        if !handshakeDone {
            handshakeDone = true
            handshake.fail(error)
        }
        messages.finish(throwing: error)
        context.close(promise: nil)
    }
}
