import ConfabWire
import NIOCore

/// Splits the plaintext stream into session messages and decodes them.
///
/// A length over the limit is an error as soon as its 4 bytes are in, so a peer cannot
/// make us buffer more than one maximal message. A message of a kind this version does
/// not know decodes to nil and is skipped (newer peers may send more kinds); one that does
/// not decode at all is an error.
struct SessionMessageDecoder: ByteToMessageDecoder {
    typealias InboundOut = SessionMessage

    let maxMessageBytes: Int

    init(maxMessageBytes: Int = SessionFraming.maxMessageBytes) {
        self.maxMessageBytes = maxMessageBytes
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return .needMoreData
        }
        guard length <= maxMessageBytes else {
            throw SessionError.messageTooLarge(Int(length), limit: maxMessageBytes)
        }
        guard buffer.readableBytes >= SessionFraming.lengthPrefixBytes + Int(length) else {
            return .needMoreData
        }
        buffer.moveReaderIndex(forwardBy: SessionFraming.lengthPrefixBytes)
        let body = buffer.readableBytesView.prefix(Int(length))
        buffer.moveReaderIndex(forwardBy: Int(length))
        if let message = try SessionCodec.decode(body) {
            context.fireChannelRead(Self.wrapInboundOut(message))
        }
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A message cut off by the end of the stream can never complete. Whether the end
        // was orderly is the box-stream's goodbye to tell, not this decoder's.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
