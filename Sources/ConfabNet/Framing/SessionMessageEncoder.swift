import ConfabWire
import Logging
import NIOCore

/// Encodes outbound session messages with their length prefix.
///
/// A message over the limit is refused here, before anything is written: the peer would
/// close the session on it, and the message would be lost all the same. Its write fails
/// and the refusal is logged, since it means the layer above did not chunk its data.
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
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: SessionFraming.lengthPrefixBytes + bytes.count)
        buffer.writeInteger(UInt32(bytes.count), endianness: .big)
        buffer.writeBytes(bytes)
        context.write(Self.wrapOutboundOut(buffer), promise: promise)
    }
}
