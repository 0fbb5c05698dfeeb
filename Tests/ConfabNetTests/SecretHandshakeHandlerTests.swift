import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOCore
import NIOEmbedded
import Testing

@testable import ConfabNet

@Suite("SecretHandshakeHandler")
struct SecretHandshakeHandlerTests {
    struct Side {
        let channel: EmbeddedChannel
        let tail: TailRecorder
    }

    func side(
        _ role: SecretHandshakeHandler.Role, identity: SigningKeyPair, networkKey: NetworkKey = .default,
        timeout: TimeAmount = .seconds(10), firstMessageTimeout: TimeAmount? = nil
    ) throws -> Side {
        let tail = TailRecorder()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            SecretHandshakeHandler(
                role: role, identity: identity, networkKey: networkKey, timeout: timeout,
                firstMessageTimeout: firstMessageTimeout),
            tail,
        ])
        return Side(channel: channel, tail: tail)
    }

    @Test func clientAndServerCompleteAndSwitchToBoxStream() throws {
        let client = try side(.client(server: Keys.bob.id), identity: Keys.alice)
        let server = try side(.server, identity: Keys.bob)
        try server.channel.activate()
        try client.channel.activate()
        try shuttle(client.channel, server.channel)

        let clientDone = client.tail.events.compactMap { $0 as? SecretHandshakeCompleted }
        let serverDone = server.tail.events.compactMap { $0 as? SecretHandshakeCompleted }
        #expect(clientDone.map(\.remote) == [Keys.bob.id])
        #expect(serverDone.map(\.remote) == [Keys.alice.id])
        // Both sides' sha256(ab): the same 32 bytes, what the link words are derived from.
        #expect(clientDone.first?.transcriptHash.count == 32)
        #expect(clientDone.map(\.transcriptHash) == serverDone.map(\.transcriptHash))
        for side in [client, server] {
            let pipeline = side.channel.pipeline.syncOperations
            #expect(throws: ChannelPipelineError.self) { try pipeline.handler(type: SecretHandshakeHandler.self) }
            _ = try pipeline.handler(type: BoxStreamDecryptHandler.self)
            _ = try pipeline.handler(type: BoxStreamEncryptHandler.self)
            #expect(side.tail.errors.isEmpty)
        }

        // Both directions are now encrypted: bytes go through, and not in clear.
        try client.channel.writeAndFlush(ByteBuffer(string: "hello bob")).wait()
        let wire = try client.channel.drainOutbound()
        #expect(wire.count == BoxStream.headerLength + 9)
        #expect(!String(decoding: wire, as: UTF8.self).contains("hello"))
        try server.channel.writeInbound(ByteBuffer(bytes: wire))
        #expect(server.tail.readBytes == Array("hello bob".utf8))

        try server.channel.writeAndFlush(ByteBuffer(string: "hi alice")).wait()
        try shuttle(client.channel, server.channel)
        #expect(client.tail.readBytes == Array("hi alice".utf8))
    }

    @Test func messagesAreExactlyTheSpecifiedSizes() throws {
        let client = try side(.client(server: Keys.bob.id), identity: Keys.alice)
        let server = try side(.server, identity: Keys.bob)
        try server.channel.activate()
        try client.channel.activate()
        var sizes: [Int] = []
        for (from, to) in [(client, server), (server, client), (client, server), (server, client)] {
            let bytes = try from.channel.drainOutbound()
            sizes.append(bytes.count)
            try to.channel.writeInbound(ByteBuffer(bytes: bytes))
        }
        #expect(sizes == [64, 64, 112, 80])
    }

    @Test func bytesBehindTheLastMessageReachTheBoxStreamAfterTheEvent() throws {
        let client = try side(.client(server: Keys.bob.id), identity: Keys.alice)
        let server = try side(.server, identity: Keys.bob)
        try server.channel.activate()
        try client.channel.activate()
        // Messages 1 to 3.
        try server.channel.writeInbound(ByteBuffer(bytes: try client.channel.drainOutbound()))
        try client.channel.writeInbound(ByteBuffer(bytes: try server.channel.drainOutbound()))
        try server.channel.writeInbound(ByteBuffer(bytes: try client.channel.drainOutbound()))
        // The server is done and speaks at once: message 4 and a frame arrive together.
        try server.channel.writeAndFlush(ByteBuffer(string: "early")).wait()
        let together = try server.channel.drainOutbound()
        #expect(together.count == 80 + BoxStream.headerLength + 5)
        try client.channel.writeInbound(ByteBuffer(bytes: together))

        #expect(client.tail.order == ["event", "read"])
        #expect(client.tail.readBytes == Array("early".utf8))
    }

    @Test func aServerOnAnotherNetworkClosesWithoutAWord() throws {
        let client = try side(.client(server: Keys.bob.id), identity: Keys.alice, networkKey: .random())
        let server = try side(.server, identity: Keys.bob)
        try server.channel.activate()
        try client.channel.activate()
        try server.channel.writeInbound(ByteBuffer(bytes: try client.channel.drainOutbound()))

        #expect(!server.channel.isActive)
        #expect(try server.channel.drainOutbound().isEmpty)
        #expect(server.tail.errors.count == 1)
        #expect(server.tail.errors.first as? SecretHandshakeError == .challengeRejected(message: 1))
        #expect(server.tail.events.isEmpty)
    }

    @Test func aClientExpectingAnotherServerKeyIsRejectedByTheServer() throws {
        let client = try side(.client(server: Keys.carol.id), identity: Keys.alice)
        let server = try side(.server, identity: Keys.bob)
        try server.channel.activate()
        try client.channel.activate()
        try shuttle(client.channel, server.channel)

        #expect(server.tail.errors.first as? SecretHandshakeError == .clientAuthUnreadable)
        #expect(!server.channel.isActive)
        #expect(client.tail.events.isEmpty)
        // The client is left waiting for message 4; it learns when the connection drops.
        try client.channel.close().wait()
        #expect(client.tail.errors.first as? SessionError == .handshakeInterrupted)
    }

    @Test func garbageInsteadOfAChallengeClosesTheConnection() throws {
        let server = try side(.server, identity: Keys.bob)
        try server.channel.activate()
        try server.channel.writeInbound(ByteBuffer(bytes: (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }))
        #expect(!server.channel.isActive)
        #expect(try server.channel.drainOutbound().isEmpty)
        #expect(server.tail.errors.count == 1)
    }

    @Test func aSilentPeerTimesOut() throws {
        let server = try side(.server, identity: Keys.bob, timeout: .seconds(3))
        try server.channel.activate()
        server.channel.embeddedEventLoop.advanceTime(by: .milliseconds(2999))
        #expect(server.channel.isActive)
        server.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!server.channel.isActive)
        #expect(server.tail.errors.first as? SessionError == .handshakeTimedOut(after: .seconds(3)))
    }

    @Test func aServerClosesAConnectionThatSendsNoMessage1InTime() throws {
        let server = try side(.server, identity: Keys.bob, timeout: .seconds(10), firstMessageTimeout: .seconds(3))
        try server.channel.activate()
        // 63 of the 64 bytes are not message 1.
        try server.channel.writeInbound(ByteBuffer(bytes: [UInt8](repeating: 1, count: 63)))
        server.channel.embeddedEventLoop.advanceTime(by: .milliseconds(2999))
        #expect(server.channel.isActive)
        server.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!server.channel.isActive)
        #expect(try server.channel.drainOutbound().isEmpty)
        #expect(server.tail.errors.first as? SessionError == .firstMessageTimedOut(after: .seconds(3)))
    }

    @Test func afterMessage1OnlyTheWholeHandshakeBoundApplies() throws {
        let server = try side(.server, identity: Keys.bob, timeout: .seconds(10), firstMessageTimeout: .seconds(3))
        try server.channel.activate()
        server.channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        let client = try SecretHandshakeClient(
            networkKey: NetworkKey.default.bytes, keyPair: Keys.alice, serverPublicKey: Keys.bob.publicKey)
        try server.channel.writeInbound(ByteBuffer(bytes: client.challenge))
        #expect(try server.channel.drainOutbound().count == SecretHandshake.challengeLength)
        server.channel.embeddedEventLoop.advanceTime(by: .milliseconds(7999))
        #expect(server.channel.isActive)
        server.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!server.channel.isActive)
        #expect(server.tail.errors.map { $0 as? SessionError } == [.handshakeTimedOut(after: .seconds(10))])
    }

    @Test func theFirstMessageTimerIsTheServersOnly() throws {
        // A client waits for message 2 under the whole-handshake bound alone.
        let client = try side(
            .client(server: Keys.bob.id), identity: Keys.alice, timeout: .seconds(10), firstMessageTimeout: .seconds(3))
        try client.channel.activate()
        client.channel.embeddedEventLoop.advanceTime(by: .milliseconds(9999))
        #expect(client.channel.isActive)
        client.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(client.tail.errors.first as? SessionError == .handshakeTimedOut(after: .seconds(10)))
    }

    @Test func theTimeoutIsCancelledOnSuccess() throws {
        let client = try side(.client(server: Keys.bob.id), identity: Keys.alice, timeout: .seconds(1))
        let server = try side(.server, identity: Keys.bob, timeout: .seconds(1))
        try server.channel.activate()
        try client.channel.activate()
        try shuttle(client.channel, server.channel)
        client.channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        server.channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(client.channel.isActive && server.channel.isActive)
        #expect(client.tail.errors.isEmpty && server.tail.errors.isEmpty)
    }

    @Test func theClientSpeaksFirstAndOnlyOnceActive() throws {
        let client = try side(.client(server: Keys.bob.id), identity: Keys.alice)
        #expect(try client.channel.drainOutbound().isEmpty)
        try client.channel.activate()
        #expect(try client.channel.drainOutbound().count == 64)
        let server = try side(.server, identity: Keys.bob)
        try server.channel.activate()
        #expect(try server.channel.drainOutbound().isEmpty)
    }
}
