import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOCore
import NIOPosix
import Testing

@testable import ConfabNet

/// Real TCP sessions between services on 127.0.0.1.
@Suite("SessionService", .timeLimit(.minutes(1)))
struct SessionServiceTests {
    @Test func twoNodesExchangeMessagesBothWays() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)

            let dialled = try await bob.dial(alice)
            #expect(dialled.remote == alice.id)
            #expect(dialled.isInitiator)
            try await eventually("both open") { alice.delegate.opened.count == 1 && bob.delegate.opened.count == 1 }
            let accepted = try #require(alice.service.session(with: bob.id))
            #expect(!accepted.isInitiator)
            #expect(accepted.remote == bob.id)
            #expect(accepted.localAddress == dialled.remoteAddress)
            #expect(accepted.remoteAddress == dialled.localAddress)
            #expect(bob.delegate.opened.first === dialled)

            // In order, in batches and one by one, both ways; a large one spans many frames.
            let hello = SessionMessage.hello(.init(displayName: "Bob", role: .person, listenPort: UInt16(bob.port)))
            dialled.send(hello)
            let big = SessionMessage.entries([[UInt8](repeating: 7, count: 60_000), [1, 2, 3]])
            let want = SessionMessage.want(
                .init(
                    conversation: ConversationID(bytes: [UInt8](repeating: 1, count: 16))!, author: alice.id, after: 3))
            dialled.send([big, want])
            for n in 0..<100 { accepted.send(.entries([[UInt8(n)]])) }

            try await eventually("alice received 3") { alice.delegate.received.count == 3 }
            try await eventually("bob received 100") { bob.delegate.received.count == 100 }
            #expect(alice.delegate.received.first == hello)
            #expect(alice.delegate.received[1] == big)
            #expect(alice.delegate.received[2] == want)
            #expect(bob.delegate.received == (0..<100).map { SessionMessage.entries([[UInt8($0)]]) })
            #expect(alice.delegate.closed.isEmpty && bob.delegate.closed.isEmpty)

            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    /// Both ends' sockets hold at most `unsentLimit` bytes unsent, so a message written during
    /// a file transfer waits behind that and the pacer's file data only, not behind the
    /// megabytes a kernel would queue by default.
    @Test func bothEndsLimitWhatTheKernelHoldsUnsent() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)
            let dialled = try await bob.dial(alice)
            try await eventually("both open") { alice.delegate.opened.count == 1 && bob.delegate.opened.count == 1 }
            let accepted = try #require(alice.service.session(with: bob.id))
            for session in [dialled, accepted] {
                let limit = try await session.channel.getOption(SessionPipeline.unsentLimit).get()
                #expect(
                    limit
                        == SocketOptionValue(
                            SessionConfiguration(identity: Keys.alice, networkKey: .default).unsentLimit))
            }
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    @Test func keepaliveKeepsAQuietSessionOpenAndIsNeverDelivered() async throws {
        try await withEventLoopGroup { group in
            // A dead-peer timeout long enough that a loaded machine (the parallel suites, a
            // browser test) does not starve a live session into one.
            let fast: (inout SessionConfiguration) -> Void = {
                $0.pingInterval = .milliseconds(100)
                $0.deadPeerTimeout = .seconds(1)
            }
            let alice = try await TestNode.start(Keys.alice, group: group, configure: fast)
            let bob = try await TestNode.start(Keys.bob, group: group, configure: fast)
            _ = try await bob.dial(alice)
            // Pings alone, nothing else sent: both ends still receive them once three of the
            // dead-peer timeouts have passed, and by then any delivered to the delegate or
            // any close would have been reported.
            let quietFrom = ContinuousClock.now
            var before = (alice: 0, bob: 0)
            try await eventually("pings both ways after three dead-peer timeouts") {
                let now = (alice: alice.service.statistics.bytesReceived, bob: bob.service.statistics.bytesReceived)
                guard ContinuousClock.now - quietFrom >= .seconds(3) else {
                    before = now
                    return false
                }
                return now.alice > before.alice && now.bob > before.bob
            }
            #expect(alice.delegate.closed.isEmpty && bob.delegate.closed.isEmpty)
            #expect(alice.delegate.received.isEmpty && bob.delegate.received.isEmpty)
            #expect(alice.service.sessions.count == 1)
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    @Test func aPeerThatStopsAnsweringIsClosed() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group) {
                $0.pingInterval = .milliseconds(50)
                $0.deadPeerTimeout = .milliseconds(300)
            }
            // Completes the handshake, then never says anything, not even Pong. Timed from
            // before the connection: the session (and its silence timer) starts after it,
            // however late this task sees it open on a loaded machine.
            let start = ContinuousClock.now
            let (channel, log) = try await connectByHand(
                group: group, port: alice.port, handshakeAs: Keys.carol, server: alice.id)
            try await eventually("opened") { alice.delegate.opened.count == 1 }
            try await eventually("closed") { alice.delegate.closed.count == 1 }
            let elapsed = ContinuousClock.now - start
            // The reason proves which timer fired; no upper bound on time, which a loaded
            // machine would break (`eventually` gives up after 5 s anyway).
            #expect(alice.delegate.closed.first?.1 == "\(SessionError.peerSilent(for: .milliseconds(300)))")
            #expect(elapsed >= .milliseconds(250))
            try await eventually("connection closed") { log.closed }
            #expect(!log.bytes.isEmpty)  // the pings it never answered
            try? await channel.close()
            try await alice.shutdown()
        }
    }

    @Test func aWrongNetworkKeyFailsOnBothSidesAndTheServerKeepsServing() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let mallory = try await TestNode.start(Keys.carol, group: group, networkKey: .random())
            await #expect(throws: SessionError.handshakeInterrupted) { _ = try await mallory.dial(alice) }
            try await eventually("server counted the failure") { alice.service.statistics.handshakeFailures == 1 }
            let logged = alice.logs.all.first { $0.message.contains("handshake failed") }
            #expect(logged?.metadata["peer"]?.contains("127.0.0.1") == true)
            #expect(logged?.metadata["reason"]?.contains("HMAC") == true)
            #expect(alice.delegate.opened.isEmpty && mallory.delegate.opened.isEmpty)

            let bob = try await TestNode.start(Keys.bob, group: group)
            let session = try await bob.dial(alice)
            session.send(.bye("thanks"))
            try await eventually("alice heard bob") { alice.delegate.received == [.bye("thanks")] }
            for node in [alice, bob, mallory] { try await node.shutdown() }
        }
    }

    @Test func aRefusedKeyGetsNoSessionOnEitherSideAndOthersStillDo() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group) { configuration in
                configuration.admit = { $0 != Keys.carol.id }
            }
            let carol = try await TestNode.start(Keys.carol, group: group)
            // Alice learns carol's key from message 3 and sends nothing more: to carol this
            // looks like any failed handshake.
            await #expect(throws: SessionError.handshakeInterrupted) { _ = try await carol.dial(alice) }
            try await eventually("server counted the refusal") { alice.service.statistics.handshakeFailures == 1 }
            let logged = alice.logs.all.first { $0.message.contains("handshake failed") }
            #expect(logged?.metadata["reason"]?.contains("refused the key \(Keys.carol.id.shortHex)") == true)
            #expect(alice.delegate.opened.isEmpty && carol.delegate.opened.isEmpty)

            let bob = try await TestNode.start(Keys.bob, group: group)
            _ = try await bob.dial(alice)
            try await eventually("bob admitted") { alice.delegate.opened.map(\.remote) == [Keys.bob.id] }
            for node in [alice, bob, carol] { try await node.shutdown() }
        }
    }

    @Test func dialingAKeyThatIsNotThereFails() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)
            // Bob expects Carol at Alice's address: Alice cannot open message 3.
            let service = bob.service
            await #expect(throws: SessionError.handshakeInterrupted) {
                _ = try await withTimeout("dial") {
                    try await service.dial(host: "127.0.0.1", port: alice.port, remote: Keys.carol.id)
                }
            }
            try await eventually("server counted the failure") { alice.service.statistics.handshakeFailures == 1 }
            #expect(alice.delegate.opened.isEmpty)
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    @Test func garbageClosesThatConnectionAndGoodSessionsGoOn() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)
            let session = try await bob.dial(alice)

            let (garbage, log) = try await connectByHand(group: group, port: alice.port)
            try await garbage.writeAndFlush(ByteBuffer(bytes: randomBytes(300)))
            try await eventually("garbage connection closed") { log.closed }
            #expect(log.bytes.isEmpty)

            session.send(.ping(1))
            session.send(.bye("still here"))
            try await eventually("message after garbage") { alice.delegate.received == [.bye("still here")] }
            #expect(alice.delegate.opened.count == 1)
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    @Test func anOversizedMessageClosesTheSession() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let (channel, log) = try await connectByHand(
                group: group, port: alice.port, handshakeAs: Keys.carol, server: alice.id)
            try await eventually("handshake") { log.handshakeCompleted }
            try await eventually("opened") { alice.delegate.opened.count == 1 }

            var header = ByteBuffer()
            header.writeInteger(UInt32(SessionCodec.maxMessageBytes + 1))
            try await channel.writeAndFlush(header)

            try await eventually("closed") { alice.delegate.closed.count == 1 }
            let limit = SessionCodec.maxMessageBytes
            #expect(alice.delegate.closed.first?.1 == "\(SessionError.messageTooLarge(limit + 1, limit: limit))")
            try await eventually("connection closed") { log.closed }
            // The box-stream itself was sound, so Alice ended it properly.
            #expect(log.goodbyeReceived)
            #expect(alice.service.sessions.isEmpty)
            try await alice.shutdown()
        }
    }

    @Test func aSilentClientIsDroppedAfterTheHandshakeTimeout() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group) { $0.handshakeTimeout = .milliseconds(200) }
            let start = ContinuousClock.now
            let (_, log) = try await connectByHand(group: group, port: alice.port)
            try await eventually("dropped") { log.closed }
            let elapsed = ContinuousClock.now - start
            // The logged reason proves the handshake timer fired; no upper bound on time,
            // which a loaded machine would break.
            #expect(elapsed >= .milliseconds(190))
            try await eventually("counted") { alice.service.statistics.handshakeFailures == 1 }
            #expect(alice.logs.all.contains { $0.metadata["reason"]?.contains("handshake not completed") == true })
            try await alice.shutdown()
        }
    }

    @Test(arguments: 0..<5)
    func simultaneousDialsEndWithOneSessionTheSameOnBothSides(round: Int) async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)
            async let fromAlice = alice.dial(bob)
            async let fromBob = bob.dial(alice)
            _ = try await (fromAlice, fromBob)

            func settled() -> Bool {
                guard alice.service.sessions.count == 1, bob.service.sessions.count == 1 else { return false }
                let a = alice.service.sessions[0]
                let b = bob.service.sessions[0]
                return a.localAddress == b.remoteAddress && a.remoteAddress == b.localAddress
                    && alice.delegate.opened.count - alice.delegate.closed.count == 1
                    && bob.delegate.opened.count - bob.delegate.closed.count == 1
            }
            // Every other connection closed at both ends: nothing more will be reported.
            try await eventually("one session each, and no other connection") {
                settled() && alice.service.core.openConnections == 1 && bob.service.core.openConnections == 1
            }
            #expect(settled())

            let kept = alice.service.sessions[0]
            // When both connections got through, the rule decides: keep the one dialled by the
            // smaller key. (Under load one side's dial may find the other's session already
            // open and join it; then there was never a duplicate to decide.)
            if alice.service.statistics.duplicates + bob.service.statistics.duplicates > 0 {
                #expect(kept.isInitiator == (alice.id < bob.id))
            }
            for node in [alice, bob] {
                #expect(node.delegate.opened.last == node.service.sessions[0])
                // Never reported closed without having been reported open, and never two open at once.
                var open = Set<UInt64>()
                for event in node.delegate.events {
                    switch event {
                    case .opened(let s):
                        #expect(open.isEmpty)
                        open.insert(s.id)
                    case .closed(let s, _):
                        #expect(open.remove(s.id) != nil)
                    case .received(let s, let message):
                        #expect(message == .bye("duplicate session") || open.contains(s.id))
                    }
                }
            }
            // And it works.
            kept.send(.ping(3))
            kept.send(.bye("over"))
            try await eventually("bob heard") { bob.delegate.received.last == .bye("over") }
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    @Test func aSecondDialReturnsTheSessionAlreadyOpen() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)
            async let first = bob.dial(alice)
            async let second = bob.dial(alice)
            let (one, two) = try await (first, second)
            let three = try await bob.dial(alice)
            #expect(one === two && two === three)
            try await eventually("alice opened") { alice.delegate.opened.count == 1 }
            #expect(alice.service.statistics.accepted == 1)
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    @Test func shutdownSaysByeAndThePeerSeesTheClose() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)
            let session = try await bob.dial(alice)
            try await eventually("opened") { alice.delegate.opened.count == 1 }

            try await alice.shutdown()
            try await eventually("bob saw the close") { bob.delegate.closed.count == 1 }
            #expect(bob.delegate.received == [.bye("shutdown")])
            #expect(bob.delegate.closed.first?.0 === session)
            #expect(bob.delegate.closed.first?.1 == nil)
            #expect(alice.delegate.closed.count == 1)
            #expect(alice.delegate.closed.first?.1 == nil)
            #expect(bob.service.sessions.isEmpty && alice.service.sessions.isEmpty)

            // Alice no longer listens, and refuses to dial.
            await #expect(throws: (any Error).self) { _ = try await bob.dial(alice) }
            await #expect(throws: SessionError.shuttingDown) { _ = try await alice.dial(bob) }
            try await bob.shutdown()
        }
    }

    @Test func closingASessionSaysByeWithTheReason() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)
            let session = try await bob.dial(alice)
            try await eventually("opened") { alice.delegate.opened.count == 1 }
            session.send(.ping(9))
            session.send(.entries([[4]]))
            session.close(reason: "going away")
            session.send(.entries([[5]]))  // too late: dropped
            try await eventually("alice saw the close") { alice.delegate.closed.count == 1 }
            #expect(alice.delegate.received == [.entries([[4]]), .bye("going away")])
            #expect(alice.delegate.closed.first?.1 == nil)
            try await eventually("bob saw the close") { bob.delegate.closed.count == 1 }
            #expect(bob.delegate.closed.first?.1 == nil)
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    @Test func connectionsBeyondTheLimitAreRefused() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group) { $0.maxSessions = 1 }
            let bob = try await TestNode.start(Keys.bob, group: group)
            let carol = try await TestNode.start(Keys.carol, group: group)
            _ = try await bob.dial(alice)
            // Refused inside the handshake once Alice knows it is a new peer, like any
            // refused key (the limit on sessions is ConnectionSlotTests' subject).
            await #expect(throws: SessionError.handshakeInterrupted) { _ = try await carol.dial(alice) }
            #expect(alice.service.statistics.refused == 1)
            #expect(alice.service.sessions.map(\.remote) == [bob.id])
            for node in [alice, bob, carol] { try await node.shutdown() }
        }
    }

    @Test func aPeerThatVanishesIsReportedWithAnError() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let (channel, log) = try await connectByHand(
                group: group, port: alice.port, handshakeAs: Keys.carol, server: alice.id)
            try await eventually("opened") { log.handshakeCompleted && alice.delegate.opened.count == 1 }
            // A TCP close without a goodbye: an error from below makes the hand-made pipeline
            // close without one, as a crashed process would.
            channel.pipeline.fireErrorCaught(ChannelError.ioOnClosedChannel)
            try await eventually("alice saw the close") { alice.delegate.closed.count == 1 }
            #expect(alice.delegate.closed.first?.1 == "\(SessionError.connectionLost)")
            #expect(alice.service.statistics.failed == 1)
            try await alice.shutdown()
        }
    }

    @Test func aNodeDoesNotTalkToItself() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            await #expect(throws: SessionError.connectedToSelf) { _ = try await alice.dial(alice) }
            // Someone else holding Alice's key (or Alice by a detour) is turned away too.
            let (_, log) = try await connectByHand(
                group: group, port: alice.port, handshakeAs: Keys.alice, server: alice.id)
            try await eventually("closed") { log.closed }
            #expect(log.handshakeCompleted)
            #expect(alice.delegate.events.isEmpty)
            #expect(alice.logs.all.contains { $0.metadata["reason"] == "\(SessionError.connectedToSelf)" })
            try await alice.shutdown()
        }
    }
}
