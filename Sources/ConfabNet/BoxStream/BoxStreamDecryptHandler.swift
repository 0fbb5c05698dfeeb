import ConfabCrypto
import NIOCore

/// Turns the received box-stream (Protocol.md §3.8) into the plaintext bytes it carries.
///
/// Frame boundaries mean nothing to the layers above, so the authenticated bodies a read
/// completes are passed on together, as soon as they are. The peer's goodbye fires
/// `BoxStreamGoodbyeReceived` and closes the channel through the whole pipeline, so our
/// own goodbye goes out too. Any failure (a header or body that does not authenticate, a bad length, data after the
/// goodbye) is fired as an error and the connection is closed from here, below the
/// encrypting handler, so nothing more is sent (§3.10).
final class BoxStreamDecryptHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var decryptor: BoxStreamDecryptor
    private var ended = false
    /// Where a read's bodies are opened, kept from read to read; what they hold then goes on
    /// in a buffer of its own exact size, since the layers above may keep it (a message cut
    /// across reads waits in the framing decoder) and a buffer sized for the whole read would
    /// be kept with it.
    private var scratch: [UInt8] = []

    init(decryptor: BoxStreamDecryptor) {
        self.decryptor = decryptor
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ended else { return }
        let chunk = Self.unwrapInboundIn(data)
        // Every body the read completes, opened into the scratch space, then passed on at once.
        let capacity = decryptor.plaintextCapacity(forChunkOf: chunk.readableBytes)
        if scratch.count < capacity { scratch = [UInt8](repeating: 0, count: capacity) }
        let written: Int
        do {
            written = try chunk.withUnsafeReadableBytes { sealed in
                try scratch.withUnsafeMutableBytes { try decryptor.feed(sealed, into: $0) }
            }
        } catch {
            ended = true
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        if written > 0 {
            let plaintext = context.channel.allocator.buffer(bytes: scratch[0..<written])
            context.fireChannelRead(Self.wrapInboundOut(plaintext))
        }
        if decryptor.isClosed {
            ended = true
            context.fireUserInboundEventTriggered(BoxStreamGoodbyeReceived())
            context.channel.close(promise: nil)
        }
    }
}
