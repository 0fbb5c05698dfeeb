import ConfabClient
import NIOCore

/// Splits the byte stream into lines, refusing a line longer than the limit.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let line = buffer.readSlice(length: newline - buffer.readerIndex)!
            buffer.moveReaderIndex(forwardBy: 1)
            context.fireChannelRead(Self.wrapInboundOut(line))
            return .continue
        }
        if buffer.readableBytes > ControlServer.maxLineBytes { throw ClientError.control("control request too long") }
        return .needMoreData
    }
}

/// Passes lines on in the batches the socket delivered them: every line of one read, at
/// the read's end. A script that writes many requests at once gets them handled together.
final class LineBatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = [ByteBuffer]

    private var lines: [ByteBuffer] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lines.append(Self.unwrapInboundIn(data))
        // A very long burst is passed on in parts, so a batch stays bounded.
        if lines.count >= 1024 { flush(context) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flush(context)
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        flush(context)
        context.fireChannelInactive()
    }

    private func flush(_ context: ChannelHandlerContext) {
        guard !lines.isEmpty else { return }
        context.fireChannelRead(Self.wrapInboundOut(lines))
        lines = []
    }
}
