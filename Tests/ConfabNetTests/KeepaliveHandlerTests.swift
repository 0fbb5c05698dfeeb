import ConfabWire
import NIOCore
import NIOEmbedded
import Testing

@testable import ConfabNet

@Suite("KeepaliveHandler")
struct KeepaliveHandlerTests {
    let ping = TimeAmount.seconds(15)
    let dead = TimeAmount.seconds(45)

    func channel(established: Bool = true) throws -> (EmbeddedChannel, MessageTail) {
        let tail = MessageTail()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            KeepaliveHandler(pingInterval: ping, deadPeerTimeout: dead), tail,
        ])
        try channel.activate()
        if established {
            channel.pipeline.fireUserInboundEventTriggered(SecretHandshakeCompleted(remote: Keys.bob.id))
        }
        return (channel, tail)
    }

    func written(_ channel: EmbeddedChannel) throws -> [SessionMessage] {
        var out: [SessionMessage] = []
        while let message = try channel.readOutbound(as: SessionMessage.self) { out.append(message) }
        return out
    }

    @Test func nothingHappensBeforeTheHandshake() throws {
        let (channel, tail) = try channel(established: false)
        channel.embeddedEventLoop.advanceTime(by: .minutes(5))
        #expect(try written(channel).isEmpty)
        #expect(channel.isActive)
        #expect(tail.errors.isEmpty)
    }

    /// No sooner than four fifths of the interval, no later than the interval.
    @Test func pingsAfterTheIntervalWithoutWrites() throws {
        let (channel, _) = try channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(12) - .milliseconds(1))
        #expect(try written(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .seconds(3) + .milliseconds(1))
        let sent = try written(channel)
        #expect(sent.count == 1)
        guard case .ping = sent.first else {
            Issue.record("expected a ping, got \(sent)")
            return
        }
    }

    @Test func writesPostponeThePing() throws {
        let (channel, _) = try channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        try channel.writeOutbound(SessionMessage.bye("x"))
        _ = try written(channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(try written(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(try written(channel).count == 1)
    }

    /// Two sides of a quiet session, wired to each other for ten minutes: one Ping (and its
    /// Pong) per interval between them, where a fixed interval had both sides ping every 15 s
    /// (80 Pings), and every Ping answered. Once one side has pinged first, the other only
    /// answers: it waits the whole interval, which the pinger's next Ping always forestalls.
    @Test func aQuietSessionCostsOnePingPerIntervalNotTwo() throws {
        let (a, _) = try channel()
        let (b, _) = try channel()
        var pings = 0
        var pongs = 0
        var pingsAfterAMinute = [0, 0]
        func exchange(after minute: Bool) throws {
            for (side, (from, to)) in [(a, b), (b, a), (a, b)].enumerated() {
                for message in try written(from) {
                    if case .ping = message {
                        pings += 1
                        if minute { pingsAfterAMinute[side == 1 ? 1 : 0] += 1 }
                    }
                    if case .pong = message { pongs += 1 }
                    try to.writeInbound(message)
                }
            }
        }
        for tick in 0..<6000 {
            a.embeddedEventLoop.advanceTime(by: .milliseconds(100))
            b.embeddedEventLoop.advanceTime(by: .milliseconds(100))
            try exchange(after: tick >= 600)
        }
        #expect(pings >= 40)
        #expect(pings <= 50)
        #expect(pongs == pings)
        #expect(pingsAfterAMinute.min() == 0, "both sides pinged: \(pingsAfterAMinute)")
    }

    /// The side that answers does not ping while its peer keeps pinging, and pings on its
    /// own pace again once the peer stops.
    @Test func aPongPostponesThePingByTheWholeInterval() throws {
        let (channel, _) = try channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        try channel.writeInbound(SessionMessage.ping(1))
        #expect(try written(channel) == [.pong(1)])
        channel.embeddedEventLoop.advanceTime(by: .seconds(15) - .milliseconds(1))
        #expect(try written(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        let sent = try written(channel)
        guard sent.count == 1, case .ping = sent[0] else {
            Issue.record("expected a ping, got \(sent)")
            return
        }
    }

    @Test func answersPingWithPongAndSwallowsBoth() throws {
        let (channel, tail) = try channel()
        try channel.writeInbound(SessionMessage.ping(77))
        try channel.writeInbound(SessionMessage.pong(78))
        try channel.writeInbound(SessionMessage.bye("later"))
        #expect(try written(channel) == [.pong(77)])
        #expect(tail.messages == [.bye("later")])
    }

    @Test func noPongIsWrittenWhileUnwritableAndOnlyTheLatestPingIsAnsweredAfter() throws {
        let (channel, tail) = try channel()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        for nonce in 1...1000 { try channel.writeInbound(SessionMessage.ping(UInt64(nonce))) }
        #expect(try written(channel).isEmpty)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(try written(channel) == [.pong(1000)])
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(try written(channel).isEmpty)
        #expect(tail.messages.isEmpty)
    }

    @Test func closesAfterTheDeadPeerTimeoutWithoutReads() throws {
        let (channel, tail) = try channel()
        channel.embeddedEventLoop.advanceTime(by: dead - .milliseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(tail.errors.map { $0 as? SessionError } == [.peerSilent(for: dead)])
    }

    @Test func readsKeepTheSessionAlive() throws {
        let (channel, tail) = try channel()
        for _ in 0..<10 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(30))
            try channel.writeInbound(SessionMessage.pong(1))
        }
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: dead)
        #expect(!channel.isActive)
        #expect(tail.errors.count == 1)
    }
}

/// Keeps the session messages and errors that reach the end of the pipeline.
final class MessageTail: ChannelInboundHandler {
    typealias InboundIn = SessionMessage
    var messages: [SessionMessage] = []
    var errors: [any Error] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        messages.append(Self.unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        errors.append(error)
    }
}
