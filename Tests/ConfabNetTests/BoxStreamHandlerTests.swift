import ConfabCrypto
import NIOCore
import NIOEmbedded
import Testing

@testable import ConfabNet

@Suite("Box-stream handlers")
struct BoxStreamHandlerTests {
    struct Pair {
        let sender: EmbeddedChannel
        let receiver: EmbeddedChannel
        let received: TailRecorder
    }

    /// The client's sending half and the server's receiving half of one handshake.
    func pair() throws -> Pair {
        let outcomes = try handshakeOutcomes()
        let sender = EmbeddedChannel(
            handler: BoxStreamEncryptHandler(encryptor: try BoxStreamEncryptor(outcome: outcomes.client)))
        let received = TailRecorder()
        let receiver = EmbeddedChannel()
        try receiver.pipeline.syncOperations.addHandlers([
            BoxStreamDecryptHandler(decryptor: try BoxStreamDecryptor(outcome: outcomes.server)), received,
        ])
        try sender.activate()
        try receiver.activate()
        return Pair(sender: sender, receiver: receiver, received: received)
    }

    @Test func roundTripSplitsIntoFramesOfAtMost4096Bytes() throws {
        let pair = try pair()
        let data = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try pair.sender.writeAndFlush(ByteBuffer(bytes: data)).wait()
        let wire = try pair.sender.drainOutbound()
        #expect(wire.count == data.count + 3 * BoxStream.headerLength)

        // The receiver is fed in pieces that cut across headers and bodies.
        var offset = 0
        for size in [1, 33, 2, 4000, 997, 3, 5000, 10_000] where offset < wire.count {
            let end = min(offset + size, wire.count)
            try pair.receiver.writeInbound(ByteBuffer(bytes: wire[offset..<end]))
            offset = end
        }
        #expect(pair.received.readBytes == data)
        #expect(pair.received.reads.allSatisfy { $0.readableBytes <= BoxStream.maxBodyLength })
        #expect(pair.receiver.isActive)
    }

    @Test func writesUntilAFlushShareFrames() throws {
        let pair = try pair()
        var promises: [EventLoopFuture<Void>] = []
        for word in ["one ", "two ", "three"] {
            promises.append(pair.sender.write(ByteBuffer(string: word)))
        }
        #expect(try pair.sender.drainOutbound().isEmpty)
        pair.sender.flush()
        let wire = try pair.sender.drainOutbound()
        #expect(wire.count == BoxStream.headerLength + 13)
        for promise in promises { try promise.wait() }
        try pair.receiver.writeInbound(ByteBuffer(bytes: wire))
        #expect(pair.received.readBytes == Array("one two three".utf8))
    }

    @Test func garbageIsAnErrorAndClosesTheConnection() throws {
        let pair = try pair()
        try pair.receiver.writeInbound(ByteBuffer(bytes: [UInt8](repeating: 0x42, count: 100)))
        #expect(pair.received.errors.map { $0 as? BoxStreamError } == [.headerNotAuthentic])
        #expect(!pair.receiver.isActive)
        #expect(pair.received.reads.isEmpty)
    }

    @Test func aTamperedBodyIsNotDelivered() throws {
        let pair = try pair()
        try pair.sender.writeAndFlush(ByteBuffer(string: "authentic")).wait()
        var wire = try pair.sender.drainOutbound()
        wire[wire.count - 1] ^= 1
        try pair.receiver.writeInbound(ByteBuffer(bytes: wire))
        #expect(pair.received.errors.map { $0 as? BoxStreamError } == [.bodyNotAuthentic])
        #expect(pair.received.reads.isEmpty)
        #expect(!pair.receiver.isActive)
    }

    @Test func closeSendsGoodbyeAndTheReceiverClosesInOrder() throws {
        let pair = try pair()
        try pair.sender.writeAndFlush(ByteBuffer(string: "last words")).wait()
        try pair.sender.close().wait()
        let wire = try pair.sender.drainOutbound()
        #expect(wire.count == BoxStream.headerLength + 10 + BoxStream.headerLength)

        try pair.receiver.writeInbound(ByteBuffer(bytes: wire))
        #expect(pair.received.readBytes == Array("last words".utf8))
        #expect(pair.received.events.contains { $0 is BoxStreamGoodbyeReceived })
        #expect(pair.received.errors.isEmpty)
        #expect(!pair.receiver.isActive)
    }

    @Test func closeAlsoSendsWhatWasWrittenButNotFlushed() throws {
        let pair = try pair()
        pair.sender.write(ByteBuffer(string: "bye"), promise: nil)
        try pair.sender.close().wait()
        try pair.receiver.writeInbound(ByteBuffer(bytes: try pair.sender.drainOutbound()))
        #expect(pair.received.readBytes == Array("bye".utf8))
        #expect(pair.received.events.contains { $0 is BoxStreamGoodbyeReceived })
    }

    @Test func noGoodbyeAfterAnErrorFromBelow() throws {
        let pair = try pair()
        pair.sender.pipeline.fireErrorCaught(ChannelError.ioOnClosedChannel)
        try? pair.sender.throwIfErrorCaught()
        try pair.sender.close().wait()
        #expect(try pair.sender.drainOutbound().isEmpty)
    }

    @Test func writesAfterTheGoodbyeFail() throws {
        let outcomes = try handshakeOutcomes()
        let handler = BoxStreamEncryptHandler(encryptor: try BoxStreamEncryptor(outcome: outcomes.client))
        let channel = EmbeddedChannel(handler: handler)
        try channel.activate()
        try channel.close(mode: .output).wait()
        #expect(try channel.drainOutbound().count == BoxStream.headerLength)
        #expect(throws: BoxStreamError.streamClosed) { try channel.writeAndFlush(ByteBuffer(string: "late")).wait() }
    }

    @Test func dataBehindTheGoodbyeIsAnError() throws {
        let outcomes = try handshakeOutcomes()
        var encryptor = try BoxStreamEncryptor(outcome: outcomes.client)
        let wire = try encryptor.goodbye()
        let received = TailRecorder()
        let receiver = EmbeddedChannel()
        try receiver.pipeline.syncOperations.addHandlers([
            BoxStreamDecryptHandler(decryptor: try BoxStreamDecryptor(outcome: outcomes.server)), received,
        ])
        try receiver.activate()
        try receiver.writeInbound(ByteBuffer(bytes: wire + [1, 2, 3]))
        #expect(received.reads.isEmpty)
        // Bytes behind a goodbye break the stream (Protocol.md §3.8): an error, not an orderly end.
        #expect(received.errors.map { $0 as? BoxStreamError } == [.dataAfterGoodbye])
        #expect(!receiver.isActive)
    }
}
