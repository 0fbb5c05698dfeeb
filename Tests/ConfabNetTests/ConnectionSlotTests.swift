import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

@testable import ConfabNet

/// Who may hold a node's connections (SECURITY-REVIEW H7): connections that have proved
/// nothing, established sessions and the node's own dials each have a budget of their own,
/// and a known key is never kept out by strangers' sessions. Real sockets on loopback;
/// other hosts are played by binding to other addresses of 127.0.0.0/8.
@Suite("Connection slots", .timeLimit(.minutes(1)))
struct ConnectionSlotTests {
    typealias Connection = (channel: any Channel, log: ConnectionLog)

    /// Opens `count` connections from `source` that never send a byte.
    func silentConnections(
        _ count: Int, to node: TestNode, from source: String, group: any EventLoopGroup
    ) async throws -> [Connection] {
        var connections: [Connection] = []
        for _ in 0..<count {
            connections.append(try await connectByHand(group: group, port: node.port, from: source))
        }
        return connections
    }

    func close(_ connections: [Connection]) async {
        for connection in connections { try? await connection.channel.close() }
    }

    // MARK: The eviction rule, as the core applies it

    /// A core whose known keys the test can change, counting how often it was asked.
    final class Knowledge: Sendable {
        private let state = NIOLockedValueBox((known: Set<NodeID>(), asked: 0))
        func know(_ id: NodeID) { state.withLockedValue { _ = $0.known.insert(id) } }
        var asked: Int { state.withLockedValue { $0.asked } }
        func isKnown(_ id: NodeID) -> Bool {
            state.withLockedValue { state in
                state.asked += 1
                return state.known.contains(id)
            }
        }
    }

    func core(limit: Int, knowledge: Knowledge) -> SessionCore {
        var configuration = SessionConfiguration(identity: Keys.alice, networkKey: .default, logger: quietLogger())
        configuration.maxSessions = limit
        configuration.isKnown = { knowledge.isKnown($0) }
        return SessionCore(configuration: configuration, delegate: RecordingDelegate())
    }

    /// A session accepted from a fresh key, on connection `id`.
    func session(id: UInt64, on core: SessionCore, remote: NodeID = SigningKeyPair.generate().id) -> PeerSession {
        let channel = EmbeddedChannel()
        let handler = SessionHandler(core: core, connectionID: id, isInitiator: false, dialPromise: nil)
        return PeerSession(
            id: id, remote: remote, isInitiator: false, channel: channel,
            handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
    }

    func outcome(_ registration: SessionCore.Registration) -> String {
        switch registration {
        case .kept: "kept"
        case .replacing(let old): "replacing \(old.id)"
        case .evicting(let victim): "evicting \(victim.id)"
        case .duplicate(let winner): "duplicate of \(winner.id)"
        case .refused(let error): "refused: \(error)"
        }
    }

    @Test func theOldestConnectionOfAnUnknownKeyGivesWayWhateverTheOrderOfHandshakes() {
        let knowledge = Knowledge()
        let core = core(limit: 3, knowledge: knowledge)
        let sessions = [12, 10, 11].map { session(id: $0, on: core) }
        for session in sessions { #expect(outcome(core.register(session)) == "kept") }
        #expect(knowledge.asked == 0)  // under the limit nobody is asked about

        let known = session(id: 20, on: core)
        knowledge.know(known.remote)
        #expect(outcome(core.register(known)) == "evicting 10")
        // Another known key: the next oldest unknown one.
        let alsoKnown = session(id: 21, on: core)
        knowledge.know(alsoKnown.remote)
        #expect(outcome(core.register(alsoKnown)) == "evicting 11")
        // An unknown key is refused, and asking about it is all it costs.
        let before = knowledge.asked
        #expect(outcome(core.register(session(id: 22, on: core))) == "refused: session limit of 3 reached")
        #expect(knowledge.asked == before + 1)
        #expect(Set(core.sessions.map(\.id)) == [12, 20, 21])
        #expect(core.statistics.evicted == 2 && core.statistics.refused == 1)
    }

    @Test func aKeyThatBecameKnownDuringItsSessionDoesNotGiveWay() {
        let knowledge = Knowledge()
        let core = core(limit: 2, knowledge: knowledge)
        let older = session(id: 1, on: core)
        let newer = session(id: 2, on: core)
        #expect(outcome(core.register(older)) == "kept")
        #expect(outcome(core.register(newer)) == "kept")
        knowledge.know(older.remote)  // say, a conversation was started with it meanwhile

        let known = session(id: 3, on: core)
        knowledge.know(known.remote)
        #expect(outcome(core.register(known)) == "evicting 2")
        // A second session with a kept key is the duplicate rule's business, even at the limit.
        let again = session(id: 4, on: core, remote: older.remote)
        #expect(outcome(core.register(again)) == "replacing 1")
        #expect(core.statistics.evicted == 1)
    }

    @Test func theHandshakeRefusesWhatRegisterWouldRefuse() {
        let knowledge = Knowledge()
        let core = core(limit: 1, knowledge: knowledge)
        let stranger = session(id: 1, on: core)
        #expect(core.refusal(toEstablishWith: stranger.remote) == nil)
        #expect(outcome(core.register(stranger)) == "kept")
        let other = SigningKeyPair.generate().id
        #expect(core.refusal(toEstablishWith: other) == .tooManySessions(limit: 1))
        #expect(core.refusal(toEstablishWith: stranger.remote) == nil)  // the duplicate rule decides
        knowledge.know(other)
        #expect(core.refusal(toEstablishWith: other) == nil)
        knowledge.know(stranger.remote)
        #expect(core.refusal(toEstablishWith: other) == .tooManySessions(limit: 1))
    }

    // MARK: Real sockets

    @Test func silentConnectionsDoNotKeepAGenuinePeerOut() async throws {
        try await withEventLoopGroup { group in
            // Nothing times out while the test runs, however slow the machine.
            let alice = try await TestNode.start(Keys.alice, group: group) { $0.firstMessageTimeout = .seconds(10) }
            let bob = try await TestNode.start(Keys.bob, group: group)
            // More than the 64 slots every connection used to share, from a host that never
            // says anything.
            let silent = try await silentConnections(70, to: alice, from: "127.0.0.2", group: group)
            try await eventually("alice accepted them all") { alice.service.statistics.accepted == 70 }

            let session = try await bob.dial(alice)
            session.send(.bye("got in"))
            try await eventually("alice heard bob") { alice.delegate.received == [.bye("got in")] }
            #expect(alice.delegate.opened.map(\.remote) == [bob.id])
            // That host holds no more than its share of the handshake budget.
            #expect(alice.service.statistics.refused == 70 - 4)
            await close(silent)
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheFirstMessageTimeout() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group) {
                $0.firstMessageTimeout = .milliseconds(300)
            }
            // A genuine message 1 and then nothing: past the first timer, this one is held to
            // the whole-handshake bound (10 s) instead.
            // On a loaded machine the 300 ms can pass before message 1 is written; that
            // connection is then closed as a silent one would be, and another one tries.
            var found: Connection?
            var closedEarly = 0
            for _ in 0..<5 where found == nil {
                let connection: Connection = try await connectByHand(group: group, port: alice.port)
                let client = try SecretHandshakeClient(
                    networkKey: NetworkKey.default.bytes, keyPair: Keys.carol, serverPublicKey: Keys.alice.publicKey)
                try? await connection.channel.writeAndFlush(ByteBuffer(bytes: client.challenge))
                try await eventually("message 2, or closed") {
                    connection.log.bytes.count == SecretHandshake.challengeLength || connection.log.closed
                }
                if connection.log.bytes.count == SecretHandshake.challengeLength {
                    found = connection
                } else {
                    closedEarly += 1
                }
            }
            let stalled = try #require(found, "message 1 never arrived within 300 ms of a connection")

            let start = ContinuousClock.now
            let silent = try await silentConnections(4, to: alice, from: "127.0.0.2", group: group)
            try await eventually("silent ones closed", timeout: .seconds(3)) { silent.allSatisfy { $0.log.closed } }
            #expect(ContinuousClock.now - start >= .milliseconds(290))
            #expect(silent.allSatisfy { $0.log.bytes.isEmpty })
            let reason = "\(SessionError.firstMessageTimedOut(after: .milliseconds(300)))"
            try await eventually("each logged") {
                alice.logs.all.count { $0.metadata["reason"] == reason } == 4 + closedEarly
            }
            #expect(!stalled.log.closed)
            // Counted when the channel goes inactive, which comes after the log line above.
            try await eventually("each counted") { alice.service.statistics.handshakeFailures == 4 + closedEarly }
            #expect(alice.service.statistics.handshakeFailures == 4 + closedEarly)
            await close(silent + [stalled])
            try await alice.shutdown()
        }
    }

    @Test func oneAddressHoldsAtMostItsShareOfHandshakesAndAnotherStillGetsIn() async throws {
        try await withEventLoopGroup { group in
            // Nothing times out while the test runs, however slow the machine.
            let alice = try await TestNode.start(Keys.alice, group: group) { $0.firstMessageTimeout = .seconds(10) }
            let flood = try await silentConnections(10, to: alice, from: "127.0.0.1", group: group)
            // Four hold the address's share; the rest are closed as soon as they are accepted.
            // All ten admitted or refused (one decision each, with its count), and the six
            // refused seen closed here.
            try await eventually("six refused") {
                alice.service.statistics.accepted == 10 && flood.count { $0.log.closed } == 6
            }
            #expect(flood.count { !$0.log.closed } == 4)
            #expect(alice.service.statistics.refused == 6)

            // Another host still gets a slot, and a handshake from it completes.
            let other: Connection = try await connectByHand(group: group, port: alice.port, from: "127.0.0.2")
            let carol: Connection = try await connectByHand(
                group: group, port: alice.port, handshakeAs: Keys.carol, server: alice.id, from: "127.0.0.2")
            try await eventually("carol opened") {
                carol.log.handshakeCompleted && alice.delegate.opened.map(\.remote) == [Keys.carol.id]
            }
            #expect(alice.service.session(with: Keys.carol.id)?.remoteAddress?.ipAddress == "127.0.0.2")
            #expect(!other.log.closed)
            #expect(alice.service.statistics.refused == 6)
            await close(flood + [other, carol])
            try await alice.shutdown()
        }
    }

    @Test func whenSessionsAreFullAKnownKeyTakesTheOldestUnknownKeysPlace() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group) { configuration in
                configuration.maxSessions = 3
                configuration.isKnown = { $0 == Keys.carol.id }
            }
            var strangers: [TestNode] = []
            for _ in 0..<4 { strangers.append(try await TestNode.start(.generate(), group: group)) }
            for stranger in strangers.prefix(3) {
                _ = try await stranger.dial(alice)
                try await eventually("alice kept it") { alice.service.session(with: stranger.id) != nil }
            }

            let carol = try await TestNode.start(Keys.carol, group: group)
            let session = try await carol.dial(alice)
            let expected = Set([strangers[1].id, strangers[2].id, carol.id])
            try await eventually("carol in, the oldest stranger out") {
                Set(alice.service.sessions.map(\.remote)) == expected
            }
            try await eventually("the oldest stranger was told") { strangers[0].delegate.closed.count == 1 }
            #expect(strangers[0].delegate.received == [.bye("session limit")])
            #expect(alice.service.statistics.evicted == 1)
            session.send(.entries([[1]]))
            try await eventually("alice heard carol") { alice.delegate.received.last == .entries([[1]]) }

            // No session makes way for another unknown key: it is refused inside the handshake,
            // like any refused key.
            let lateStranger = strangers[3]
            await #expect(throws: SessionError.handshakeInterrupted) { _ = try await lateStranger.dial(alice) }
            #expect(alice.service.session(with: lateStranger.id) == nil)
            #expect(Set(alice.service.sessions.map(\.remote)).isSubset(of: expected))
            #expect(alice.service.statistics.evicted == 1)
            for node in [alice, carol] + strangers { try await node.shutdown() }
        }
    }

    @Test func aKnownKeyNeverTakesAnotherKnownKeysPlace() async throws {
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group) { configuration in
                configuration.maxSessions = 1
                configuration.isKnown = { _ in true }
            }
            let bob = try await TestNode.start(Keys.bob, group: group)
            let carol = try await TestNode.start(Keys.carol, group: group)
            _ = try await bob.dial(alice)
            try await eventually("bob kept") { alice.service.session(with: bob.id) != nil }
            await #expect(throws: SessionError.handshakeInterrupted) { _ = try await carol.dial(alice) }
            // Alice's own dial is refused before it sends anything.
            await #expect(throws: SessionError.tooManySessions(limit: 1)) { _ = try await alice.dial(carol) }
            #expect(alice.service.sessions.map(\.remote) == [bob.id])
            #expect(alice.service.statistics.evicted == 0)
            #expect(bob.delegate.closed.isEmpty)
            #expect(carol.service.statistics.accepted == 0)
            for node in [alice, bob, carol] { try await node.shutdown() }
        }
    }

    @Test func theNodesOwnDialsSucceedWhileAcceptedHandshakesAreFull() async throws {
        try await withEventLoopGroup { group in
            // Nothing times out while the test runs, however slow the machine.
            let alice = try await TestNode.start(Keys.alice, group: group) { $0.firstMessageTimeout = .seconds(10) }
            let bob = try await TestNode.start(Keys.bob, group: group)
            // Eighteen hosts, four silent connections each: more than every share, and more
            // than the 64 slots dials used to share with them.
            var silent: [Connection] = []
            for host in 2...19 {
                silent += try await silentConnections(4, to: alice, from: "127.0.0.\(host)", group: group)
            }
            try await eventually("alice accepted them all") { alice.service.statistics.accepted == 72 }
            #expect(alice.service.statistics.refused == 72 - 16)
            // The handshake budget is full: one more accepted connection is closed at once.
            let late: Connection = try await connectByHand(group: group, port: alice.port, from: "127.0.0.20")
            try await eventually("late one refused") { late.log.closed }

            let session = try await alice.dial(bob)
            session.send(.bye("dialled out"))
            try await eventually("bob heard alice") { bob.delegate.received == [.bye("dialled out")] }
            await close(silent)
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }

    @Test func dialsUnderWayAreCappedWithoutTouchingAcceptedConnections() async throws {
        try await withEventLoopGroup { group in
            // A listener that accepts and never answers: dials to it wait in their handshake.
            let mute = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
            let port = try #require(mute.localAddress?.port)
            let alice = try await TestNode.start(Keys.alice, group: group) {
                $0.maxDials = 2
                $0.handshakeTimeout = .seconds(3)
            }
            let service = alice.service
            let waiting = (0..<2).map { _ in
                Task { try await service.dial(host: "127.0.0.1", port: port, remote: SigningKeyPair.generate().id) }
            }
            try await eventually("two dials under way") { service.core.dialsUnderWay == 2 }
            await #expect(throws: SessionError.tooManyDials(limit: 2)) {
                _ = try await service.dial(host: "127.0.0.1", port: port, remote: Keys.carol.id)
            }
            // Accepted connections have their own budget.
            let bob = try await TestNode.start(Keys.bob, group: group)
            _ = try await bob.dial(alice)
            try await eventually("bob opened") { alice.delegate.opened.map(\.remote) == [bob.id] }
            try await alice.shutdown()
            for dial in waiting { _ = await dial.result }
            try await bob.shutdown()
            try await mute.close()
        }
    }
}
