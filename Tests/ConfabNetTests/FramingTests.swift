import ConfabModel
import ConfabWire
import NIOCore
import NIOEmbedded
import Testing

@testable import ConfabNet

@Suite("Session message framing")
struct FramingTests {
    let messages: [SessionMessage] = [
        .hello(.init(displayName: "Alice", role: .person, listenPort: 7461)),
        .ping(42),
        .entries([[1, 2, 3], [UInt8](repeating: 9, count: 5000)]),
        .bye("done"),
    ]

    func decoder() -> EmbeddedChannel {
        EmbeddedChannel(handler: ByteToMessageHandler(SessionMessageDecoder()))
    }

    func readAll(_ channel: EmbeddedChannel) throws -> [SessionMessage] {
        var out: [SessionMessage] = []
        while let message = try channel.readInbound(as: SessionMessage.self) { out.append(message) }
        return out
    }

    @Test func messagesSplitAcrossManyReads() throws {
        let channel = decoder()
        let wire = messages.flatMap(framed)
        for byte in wire {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
        }
        #expect(try readAll(channel) == messages)
    }

    @Test func messagesCoalescedInOneRead() throws {
        let channel = decoder()
        try channel.writeInbound(ByteBuffer(bytes: messages.flatMap(framed)))
        #expect(try readAll(channel) == messages)
    }

    @Test func anOversizedLengthIsAnErrorBeforeTheBodyArrives() throws {
        let channel = decoder()
        let length = UInt32(SessionCodec.maxMessageBytes + 1)
        var buffer = ByteBuffer()
        buffer.writeInteger(length, endianness: .big)
        #expect(throws: SessionError.messageTooLarge(Int(length), limit: SessionCodec.maxMessageBytes)) {
            try channel.writeInbound(buffer)
        }
    }

    @Test func theLargestAllowedLengthIsWaitedFor() throws {
        let channel = decoder()
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(SessionCodec.maxMessageBytes), endianness: .big)
        try channel.writeInbound(buffer)
        #expect(try readAll(channel).isEmpty)
    }

    @Test func anUnknownKindIsSkipped() throws {
        let channel = decoder()
        // Field 99 (a kind from a newer version), varint 1: `f8 06 01`. And an empty message.
        let unknown: [UInt8] = [0, 0, 0, 3, 0xf8, 0x06, 0x01]
        let empty: [UInt8] = [0, 0, 0, 0]
        try channel.writeInbound(ByteBuffer(bytes: unknown + empty + framed(.ping(1))))
        #expect(try readAll(channel) == [.ping(1)])
    }

    @Test func anUndecodableMessageIsAnError() throws {
        let channel = decoder()
        #expect(throws: WireError.self) {
            try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 3, 0xff, 0xff, 0xff]))
        }
    }

    @Test func aMessageCutOffByTheEndIsDropped() throws {
        let channel = decoder()
        let wire = framed(.ping(5)) + framed(.bye("x")).dropLast()
        try channel.writeInbound(ByteBuffer(bytes: wire))
        _ = try channel.finish()
        #expect(try readAll(channel) == [.ping(5)])
    }

    @Test func theEncoderWritesTheLengthPrefix() throws {
        let channel = EmbeddedChannel(handler: SessionMessageEncoder(logger: quietLogger()))
        for message in messages {
            try channel.writeOutbound(message)
        }
        #expect(try channel.drainOutbound() == messages.flatMap(framed))
    }

    @Test func theEncoderRefusesAMessageOverTheLimit() throws {
        let channel = EmbeddedChannel(handler: SessionMessageEncoder(maxMessageBytes: 100, logger: quietLogger()))
        #expect(
            throws: SessionError.messageTooLarge(
                SessionCodec.encode(.entries([[UInt8](repeating: 1, count: 200)])).count, limit: 100)
        ) {
            try channel.writeAndFlush(SessionMessage.entries([[UInt8](repeating: 1, count: 200)])).wait()
        }
        #expect(try channel.drainOutbound().isEmpty)
    }

    @Test func aMessageOverTheLimitEndsTheSession() throws {
        // The layer above may count what it held as sent: the session must not go on
        // without it, or the peer would never be offered it again.
        let tail = MessageTail()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            SessionMessageEncoder(maxMessageBytes: 100, logger: quietLogger()), tail,
        ])
        try channel.activate()
        channel.writeAndFlush(SessionMessage.entries([[UInt8](repeating: 1, count: 200)]), promise: nil)
        #expect(!channel.isActive)
        #expect(tail.errors.count == 1)
        #expect(try channel.drainOutbound().isEmpty)
    }
}
