import ConfabCrypto
import ConfabModel
import ConfabWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import ConfabNet

/// Back-pressure between real sockets on 127.0.0.1.
@Suite("Back-pressure on sockets", .timeLimit(.minutes(1)))
struct BackpressureSocketTests {
    /// Answers every Want at once with about 1 MB of entries, as a node without any limit
    /// of its own would: only the session layer stands between it and a peer that asks
    /// and never reads.
    final class GenerousDelegate: SessionDelegate {
        static let answer = SessionMessage.entries(Array(repeating: [UInt8](repeating: 7, count: 60_000), count: 16))
        private let closes = NIOLockedValueBox<[String]>([])
        var closed: [String] { closes.withLockedValue { $0 } }

        func sessionDidOpen(_ session: PeerSession) {}
        func session(_ session: PeerSession, didReceive message: SessionMessage) {
            if case .want = message { session.send(Self.answer) }
        }
        func sessionDidClose(_ session: PeerSession, error: (any Error)?) {
            closes.withLockedValue { $0.append(error.map { "\($0)" } ?? "orderly") }
        }
    }

    @Test func aPeerThatAsksAndNeverReadsIsClosedBeforeItsBacklogPassesTheLimit() async throws {
        try await withEventLoopGroup { group in
            let delegate = GenerousDelegate()
            let victim = SessionService(
                configuration: SessionConfiguration(identity: Keys.alice, networkKey: .default, logger: quietLogger()),
                group: group, delegate: delegate)
            let port = try await victim.listen(host: "127.0.0.1", port: 0).port!
            let log = ConnectionLog()
            // A small receive window, and no reads once the handshake is done.
            let channel = try await ClientBootstrap(group: group)
                .channelOption(.socketOption(.so_rcvbuf), value: 4096)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            SecretHandshakeHandler(
                                role: .client(server: Keys.alice.id), identity: Keys.carol, networkKey: .default,
                                timeout: .seconds(5)),
                            ConnectionLog.Tail(log),
                        ])
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            try await eventually("handshake") { log.handshakeCompleted }
            try await channel.setOption(.autoRead, value: false).get()
            let want = SessionMessage.want(
                .init(
                    conversation: ConversationID(bytes: [UInt8](repeating: 1, count: 16))!, author: Keys.alice.id,
                    after: 0))
            // 40 MB asked for: far more than the kernel's buffers and the backlog limit hold.
            try await channel.writeAndFlush(ByteBuffer(bytes: (0..<40).flatMap { _ in framed(want) }))

            try await eventually("the victim to close the session", timeout: .seconds(20)) { !delegate.closed.isEmpty }
            #expect(delegate.closed.first?.contains("not reading") == true, "\(delegate.closed)")
            let statistics = victim.statistics
            #expect(statistics.backlogClosed == 1)
            // The limit, and at most the one write that passed it.
            #expect(statistics.largestOutboundBacklog <= (8 << 20) + (1 << 20) + 64 * 1024)
            try? await channel.close()
            await victim.shutdown()
        }
    }

    @Test func aSessionReadsOnlyWhatItsDelegateConsumes() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group) {
                $0.inboxLimit = InboxLimit(messages: 8, bytes: 1 << 20)
            }
            let bob = try await TestNode.start(Keys.bob, group: group)
            let dialled = try await bob.dial(alice)
            let count = 3000
            let payload = [UInt8](repeating: 5, count: 1000)
            dialled.send((0..<count).map { SessionMessage.entries([payload + [UInt8($0 % 256)]]) })

            // Nothing consumed: reading stops after the limit and what one read brought.
            try await eventually("the first messages") { alice.delegate.received.count >= 8 }
            let session = try #require(alice.service.session(with: bob.id))
            let inbox = try #require(session.inbox)
            try await eventually("alice's session to hold its next read") { inbox.holdsReadingNow }
            let unconsumed = alice.delegate.received.count
            #expect(unconsumed < count / 3, "\(unconsumed) messages delivered with none consumed")

            // Consuming lets the rest in, in order.
            var consumed = 0
            try await eventually("everything", timeout: .seconds(20)) {
                let received = alice.delegate.received
                for message in received[consumed...] { session.consumed(message) }
                consumed = received.count
                return consumed == count
            }
            #expect(
                alice.delegate.received == (0..<count).map { SessionMessage.entries([payload + [UInt8($0 % 256)]]) })
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }
}
