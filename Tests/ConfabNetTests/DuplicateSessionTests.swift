import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

@testable import ConfabNet

/// One session per pair of nodes (Protocol.md §10.5).
@Suite("Duplicate sessions", .timeLimit(.minutes(1)))
struct DuplicateSessionTests {
    /// The two test keys, smaller first.
    let small: SigningKeyPair
    let large: SigningKeyPair

    init() {
        (small, large) = Keys.alice.id < Keys.bob.id ? (Keys.alice, Keys.bob) : (Keys.bob, Keys.alice)
    }

    // MARK: The rule, as each side applies it

    func core(_ keys: SigningKeyPair) -> SessionCore {
        SessionCore(
            configuration: SessionConfiguration(identity: keys, networkKey: .default, logger: quietLogger()),
            delegate: RecordingDelegate())
    }

    func session(on core: SessionCore, with remote: NodeID, dialledByUs: Bool) -> PeerSession {
        let channel = EmbeddedChannel()
        let handler = SessionHandler(
            core: core, connectionID: SessionCore.makeConnectionID(), isInitiator: dialledByUs, dialPromise: nil)
        return PeerSession(
            id: SessionCore.makeConnectionID(), remote: remote, isInitiator: dialledByUs, channel: channel,
            handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
    }

    enum Outcome: Equatable { case kept, replacing(UInt64), evicting(UInt64), duplicate(of: UInt64), refused }

    func register(_ session: PeerSession, on core: SessionCore) -> Outcome {
        switch core.register(session) {
        case .kept: return .kept
        case .replacing(let old): return .replacing(old.id)
        case .evicting(let victim): return .evicting(victim.id)
        case .duplicate(let winner): return .duplicate(of: winner.id)
        case .refused: return .refused
        }
    }

    @Test func bothSidesKeepTheSessionDialledByTheSmallerKeyInEitherOrder() {
        // X is dialled by the small key, Y by the large one; each node sees both.
        for smallFirst in [true, false] {
            let atSmall = core(small)
            let xAtSmall = session(on: atSmall, with: large.id, dialledByUs: true)
            let yAtSmall = session(on: atSmall, with: large.id, dialledByUs: false)
            let atLarge = core(large)
            let xAtLarge = session(on: atLarge, with: small.id, dialledByUs: false)
            let yAtLarge = session(on: atLarge, with: small.id, dialledByUs: true)

            if smallFirst {
                #expect(register(xAtSmall, on: atSmall) == .kept)
                #expect(register(yAtSmall, on: atSmall) == .duplicate(of: xAtSmall.id))
                #expect(register(xAtLarge, on: atLarge) == .kept)
                #expect(register(yAtLarge, on: atLarge) == .duplicate(of: xAtLarge.id))
            } else {
                #expect(register(yAtSmall, on: atSmall) == .kept)
                #expect(register(xAtSmall, on: atSmall) == .replacing(yAtSmall.id))
                #expect(register(yAtLarge, on: atLarge) == .kept)
                #expect(register(xAtLarge, on: atLarge) == .replacing(yAtLarge.id))
            }
            #expect(atSmall.session(with: large.id) === xAtSmall)
            #expect(atLarge.session(with: small.id) === xAtLarge)
        }
    }

    @Test func ofTwoSessionsDialledByTheSameNodeTheNewerWins() {
        for (local, remote, dialledByUs) in [(small, large, true), (small, large, false), (large, small, true)] {
            let node = core(local)
            let older = session(on: node, with: remote.id, dialledByUs: dialledByUs)
            let newer = session(on: node, with: remote.id, dialledByUs: dialledByUs)
            #expect(register(older, on: node) == .kept)
            #expect(register(newer, on: node) == .replacing(older.id))
            node.unregister(older)
            #expect(node.session(with: remote.id) === newer)
        }
    }

    // MARK: On real connections

    /// Dials like `SessionService.dial`, but without its check for an existing session, as
    /// the peer's simultaneous dial (or a restarted peer) would.
    func dialAnyway(from node: TestNode, to other: TestNode, group: any EventLoopGroup) async throws -> PeerSession {
        let core = node.service.core
        let loop = group.next()
        let promise = loop.makePromise(of: PeerSession.self)
        _ = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try SessionPipeline.install(
                        on: channel, role: .initiator(remote: other.id, dialPromise: promise), core: core)
                }
            }
            .connect(host: "127.0.0.1", port: other.port).get()
        return try await withTimeout("dial") { try await promise.futureResult.get() }
    }

    func expectHistory(_ node: TestNode, _ expected: [String], sessions: [PeerSession]) {
        let names = Dictionary(uniqueKeysWithValues: sessions.enumerated().map { ($1.id, "S\($0)") })
        let history = node.delegate.events.compactMap { event -> String? in
            switch event {
            case .opened(let s): return "open \(names[s.id] ?? "?")"
            case .closed(let s, let error): return "close \(names[s.id] ?? "?") \(error ?? "ok")"
            case .received: return nil
            }
        }
        #expect(history == expected)
    }

    @Test func aSessionDialledLaterByTheSmallerKeyReplacesTheOpenOne() async throws {
        try await withEventLoopGroup { group in
            let s = try await TestNode.start(small, group: group)
            let l = try await TestNode.start(large, group: group)
            let first = try await l.dial(s)
            try await eventually("first open") { s.delegate.opened.count == 1 && l.delegate.opened.count == 1 }
            let firstAtS = s.delegate.opened[0]

            let second = try await dialAnyway(from: s, to: l, group: group)
            try await eventually("second open") { s.delegate.opened.count == 2 && l.delegate.opened.count == 2 }
            let secondAtL = l.delegate.opened[1]
            #expect(s.service.sessions == [second])
            #expect(l.service.sessions == [secondAtL])
            #expect(second.localAddress == secondAtL.remoteAddress)
            // The replaced session is reported closed before its successor opens.
            expectHistory(s, ["open S0", "close S0 ok", "open S1"], sessions: [firstAtS, second])
            expectHistory(l, ["open S0", "close S0 ok", "open S1"], sessions: [first, secondAtL])

            second.send(.entries([[1]]))
            try await eventually("works") { l.delegate.received.last == .entries([[1]]) }
            try await s.shutdown()
            try await l.shutdown()
        }
    }

    @Test func aSessionDialledLaterByTheLargerKeyIsDroppedUnannounced() async throws {
        try await withEventLoopGroup { group in
            let s = try await TestNode.start(small, group: group)
            let l = try await TestNode.start(large, group: group)
            let kept = try await s.dial(l)
            try await eventually("open") { s.delegate.opened.count == 1 && l.delegate.opened.count == 1 }
            let keptAtL = l.delegate.opened[0]

            // The dial resolves to the session that stays.
            #expect(try await dialAnyway(from: l, to: s, group: group) === keptAtL)
            // Closed at both ends: whatever it would have reported has been reported.
            try await eventually("duplicate closed") {
                s.service.statistics.duplicates == 1 && l.service.statistics.duplicates == 1
                    && s.service.core.openConnections == 1 && l.service.core.openConnections == 1
            }
            expectHistory(s, ["open S0"], sessions: [kept])
            expectHistory(l, ["open S0"], sessions: [keptAtL])
            #expect(s.delegate.received.isEmpty && l.delegate.received.isEmpty)
            #expect(s.service.sessions == [kept] && l.service.sessions == [keptAtL])
            try await s.shutdown()
            try await l.shutdown()
        }
    }

    @Test func aNewerSessionFromTheSameDiallerReplacesTheOlder() async throws {
        try await withEventLoopGroup { group in
            let s = try await TestNode.start(small, group: group)
            let l = try await TestNode.start(large, group: group)
            let older = try await l.dial(s)
            try await eventually("open") { s.delegate.opened.count == 1 }
            let newer = try await dialAnyway(from: l, to: s, group: group)
            #expect(newer !== older)
            try await eventually("replaced") { s.delegate.opened.count == 2 && l.delegate.opened.count == 2 }
            #expect(l.service.sessions == [newer])
            expectHistory(l, ["open S0", "close S0 ok", "open S1"], sessions: [older, newer])
            try await s.shutdown()
            try await l.shutdown()
        }
    }

    // MARK: What waits while a replaced session closes

    @Test func whatWaitsForAReplacedSessionToCloseIsBoundedInBytes() throws {
        let core = core(small)
        // The kept session's close never completes (its handler is in no pipeline), so the
        // new one waits, buffering what arrives.
        let oldChannel = EmbeddedChannel()
        let oldHandler = SessionHandler(
            core: core, connectionID: SessionCore.makeConnectionID(), isInitiator: false, dialPromise: nil)
        let old = PeerSession(
            id: SessionCore.makeConnectionID(), remote: large.id, isInitiator: false, channel: oldChannel,
            handler: NIOLoopBound(oldHandler, eventLoop: oldChannel.eventLoop))
        guard case .kept = core.register(old) else {
            Issue.record("the first session should be kept")
            return
        }
        let channel = EmbeddedChannel(
            handler: SessionHandler(
                core: core, connectionID: SessionCore.makeConnectionID(), isInitiator: false, dialPromise: nil))
        try channel.activate()
        channel.pipeline.fireUserInboundEventTriggered(SecretHandshakeCompleted(remote: large.id))
        let megabyte = SessionMessage.entries(Array(repeating: [UInt8](repeating: 7, count: 60_000), count: 16))
        for _ in 0..<8 { try channel.writeInbound(megabyte) }
        #expect(channel.isActive, "7.7 MB is within the bound")
        try channel.writeInbound(megabyte)
        #expect(!channel.isActive, "a ninth message of 1 MB was buffered too")
    }
}
