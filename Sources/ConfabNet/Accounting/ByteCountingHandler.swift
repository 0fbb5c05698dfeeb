import NIOCore

/// Counts the bytes a connection reads and writes on the wire (handshake and box-stream
/// framing included), for the service's statistics.
final class ByteCountingHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let core: SessionCore

    init(core: SessionCore) {
        self.core = core
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let count = Self.unwrapInboundIn(data).readableBytes
        core.record { $0.bytesReceived += count }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let count = Self.unwrapOutboundIn(data).readableBytes
        core.record { $0.bytesSent += count }
        context.write(data, promise: promise)
    }
}
