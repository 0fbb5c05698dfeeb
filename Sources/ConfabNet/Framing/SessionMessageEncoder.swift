import ConfabWire
import Logging
import NIOCore

/// Encodes outbound session messages with their length prefix.
///
/// A message over the limit is refused here, before anything is written: the peer would
/// close the session on it. The layer above did not chunk its data, and may count what
/// the message held as sent, so the write fails and so does the session: what the
/// session was sent is then forgotten with it, and offered again in the next one.
final class SessionMessageEncoder: ChannelOutboundHandler {
    typealias OutboundIn = SessionMessage
    typealias OutboundOut = ByteBuffer

    private let maxMessageBytes: Int
    private let logger: Logger

    init(maxMessageBytes: Int = SessionFraming.maxMessageBytes, logger: Logger) {
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes = SessionCodec.encode(Self.unwrapOutboundIn(data))
        guard bytes.count <= maxMessageBytes else {
            let error = SessionError.messageTooLarge(bytes.count, limit: maxMessageBytes)
            logger.error("not sending session message", metadata: ["reason": "\(error)"])
            promise?.fail(error)
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: SessionFraming.lengthPrefixBytes + bytes.count)
        buffer.writeInteger(UInt32(bytes.count), endianness: .big)
        buffer.writeBytes(bytes)
        context.write(Self.wrapOutboundOut(buffer), promise: promise)
    }
}
