import ConfabCrypto
import NIOCore

/// Turns the received box-stream (Protocol.md §3.8) into the plaintext bytes it carries.
///
/// Frame boundaries mean nothing to the layers above, so each authenticated body is passed
/// on as soon as it is complete. The peer's goodbye fires `BoxStreamGoodbyeReceived` and
/// closes the channel through the whole pipeline, so our own goodbye goes out too. Any
/// failure (a header or body that does not authenticate, a bad length, data after the
/// goodbye) is fired as an error and the connection is closed from here, below the
/// encrypting handler, so nothing more is sent (§3.10).
final class BoxStreamDecryptHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var decryptor: BoxStreamDecryptor
    private var ended = false

    init(decryptor: BoxStreamDecryptor) {
        self.decryptor = decryptor
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ended else { return }
        let chunk = Self.unwrapInboundIn(data)
        let output: BoxStreamDecryptor.Output
        do {
            output = try decryptor.feed(chunk.readableBytesView)
        } catch {
            ended = true
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        for frame in output.frames {
            context.fireChannelRead(Self.wrapInboundOut(context.channel.allocator.buffer(bytes: frame)))
        }
        if output.goodbye {
            ended = true
            context.fireUserInboundEventTriggered(BoxStreamGoodbyeReceived())
            context.channel.close(promise: nil)
        }
    }
}
