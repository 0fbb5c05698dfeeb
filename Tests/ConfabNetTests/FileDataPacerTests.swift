import ConfabModel
import ConfabWire
import NIOCore
import NIOEmbedded
import Testing

@testable import ConfabNet

/// Stands for the socket: takes writes and completes them only when told, as a socket
/// whose buffer is full would.
final class HeldWrites: ChannelOutboundHandler {
    typealias OutboundIn = SessionMessage
    var messages: [SessionMessage] = []
    private var promises: [EventLoopPromise<Void>?] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        messages.append(Self.unwrapOutboundIn(data))
        promises.append(promise)
    }

    func flush(context: ChannelHandlerContext) {}

    /// The socket took the oldest write still held.
    func takeOne() {
        guard !promises.isEmpty else { return }
        promises.removeFirst()?.succeed()
    }
}

@Suite("File data waits behind other messages")
struct FileDataPacerTests {
    static let file = FileID(bytes: [UInt8](repeating: 3, count: 32))!

    func chunk(_ index: Int) -> SessionMessage {
        .fileChunk(file: Self.file, index: index, data: [UInt8](repeating: UInt8(index), count: 300_000))
    }

    func channel(inFlight: Int = 1, queue: Int = 16 << 20) throws -> (EmbeddedChannel, HeldWrites, MessageTail) {
        let held = HeldWrites()
        let tail = MessageTail()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            held, FileDataPacer(inFlightLimit: inFlight, queueLimit: queue), tail,
        ])
        try channel.activate()
        return (channel, held, tail)
    }

    @Test func aMessageWrittenDuringATransferOvertakesQueuedChunks() throws {
        let (channel, held, _) = try channel()
        for index in 0..<3 { channel.write(chunk(index), promise: nil) }
        channel.flush()
        channel.writeAndFlush(SessionMessage.entries([[1, 2, 3]]), promise: nil)
        // One chunk is with the socket; the message went past the other two.
        #expect(held.messages == [chunk(0), .entries([[1, 2, 3]])])
        held.takeOne()
        #expect(held.messages.last == chunk(1))
        held.takeOne()
        held.takeOne()
        #expect(held.messages == [chunk(0), .entries([[1, 2, 3]]), chunk(1), chunk(2)])
    }

    @Test func fileHavesAndWantsAreNotHeldBack() throws {
        let (channel, held, _) = try channel()
        channel.write(chunk(0), promise: nil)
        channel.write(chunk(1), promise: nil)
        channel.flush()
        let have = SessionMessage.fileHave(.init(file: Self.file, manifest: true, chunks: [1]))
        channel.writeAndFlush(have, promise: nil)
        #expect(held.messages == [chunk(0), have])
    }

    @Test func aPeerThatAsksForMoreThanItReadsIsClosed() throws {
        let (channel, _, tail) = try channel(queue: 1 << 20)
        for index in 0..<5 { channel.write(chunk(index), promise: nil) }
        channel.flush()
        #expect(tail.errors.contains { ($0 as? SessionError) == .outboundBacklog(1_200_256, limit: 1 << 20) })
        #expect(!channel.isActive)
    }
}
