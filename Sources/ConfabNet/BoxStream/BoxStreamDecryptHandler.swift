import ConfabCrypto
import NIOCore

/// Turns the received box-stream (Protocol.md §3.8) into the plaintext bytes it carries.
///
/// Frame boundaries mean nothing to the layers above, so the authenticated bodies a read
/// completes are passed on together, as soon as they are. The peer's goodbye fires `BoxStreamGoodbyeReceived` and
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
        // Every body the read completes, opened straight into one buffer passed on at once.
        let capacity = decryptor.plaintextCapacity(forChunkOf: chunk.readableBytes)
        var plaintext = context.channel.allocator.buffer(capacity: capacity)
        do {
            try chunk.withUnsafeReadableBytes { sealed in
                _ = try plaintext.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { out in
                    try decryptor.feed(sealed, into: out)
                }
            }
        } catch {
            ended = true
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        if plaintext.readableBytes > 0 { context.fireChannelRead(Self.wrapInboundOut(plaintext)) }
        if decryptor.isClosed {
            ended = true
            context.fireUserInboundEventTriggered(BoxStreamGoodbyeReceived())
            context.channel.close(promise: nil)
        }
    }
}
