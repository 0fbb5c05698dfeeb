import ConfabModel
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// What a `SessionService` shares with the handlers of its connections: the live
/// connections, the session kept for each peer, dials in flight, counters and the delegate.
/// Every decision that two connections could race on is taken here, under one lock.
final class SessionCore: Sendable {
    struct Connection: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<SessionHandler>
    }

    enum Registration {
        /// The first session with this peer: keep it.
        case kept
        /// Keep the new session; the old one must close.
        case replacing(PeerSession)
        /// The new session lost the duplicate rule to this one and must close.
        case duplicate(of: PeerSession)
        case refused(SessionError)
    }

    enum DialStart {
        case existing(PeerSession)
        case joined(EventLoopFuture<PeerSession>)
        case started(EventLoopPromise<PeerSession>)
    }

    private struct State {
        var delegate: (any SessionDelegate)?
        var connections: [UInt64: Connection] = [:]
        var kept: [NodeID: PeerSession] = [:]
        var dials: [NodeID: EventLoopFuture<PeerSession>] = [:]
        var listeners: [any Channel] = []
        var shuttingDown = false
        var statistics = SessionStatistics()
    }

    private static let lastConnectionID = NIOLockedValueBox<UInt64>(0)

    let configuration: SessionConfiguration
    let localNode: NodeID
    private let state: NIOLockedValueBox<State>

    init(configuration: SessionConfiguration, delegate: any SessionDelegate) {
        self.configuration = configuration
        self.localNode = NodeID(configuration.identity.publicKey)
        self.state = NIOLockedValueBox(State(delegate: delegate))
    }

    static func makeConnectionID() -> UInt64 {
        lastConnectionID.withLockedValue { id in
            id += 1
            return id
        }
    }

    var delegate: (any SessionDelegate)? { state.withLockedValue { $0.delegate } }

    var statistics: SessionStatistics { state.withLockedValue { $0.statistics } }

    func record(_ update: (inout SessionStatistics) -> Void) {
        state.withLockedValue { update(&$0.statistics) }
    }

    var sessions: [PeerSession] { state.withLockedValue { Array($0.kept.values) } }

    func session(with node: NodeID) -> PeerSession? { state.withLockedValue { $0.kept[node] } }

    // MARK: Connections

    /// Counts a new connection against `maxSessions`, or refuses it.
    func admit(id: UInt64, _ connection: Connection, accepted: Bool) throws(SessionError) {
        let limit = configuration.maxSessions
        let refusal: SessionError? = state.withLockedValue { state in
            if accepted { state.statistics.accepted += 1 }
            if state.shuttingDown {
                state.statistics.refused += 1
                return .shuttingDown
            }
            guard state.connections.count < limit else {
                state.statistics.refused += 1
                return .tooManySessions(limit: limit)
            }
            state.connections[id] = connection
            return nil
        }
        if let refusal { throw refusal }
    }

    func release(id: UInt64) {
        state.withLockedValue { _ = $0.connections.removeValue(forKey: id) }
    }

    // MARK: One session per peer

    /// Decides whether a session that just completed its handshake is kept (Protocol.md
    /// §10.5): of two sessions with the same peer, the one dialled by the node with the
    /// smaller key wins; if the same node dialled both, the newer wins, since the older is
    /// most likely a connection the peer has already given up on.
    func register(_ session: PeerSession) -> Registration {
        state.withLockedValue { state in
            if state.shuttingDown { return .refused(.shuttingDown) }
            guard let existing = state.kept[session.remote] else {
                state.kept[session.remote] = session
                return .kept
            }
            state.statistics.duplicates += 1
            if prefers(session, over: existing) {
                state.kept[session.remote] = session
                return .replacing(existing)
            }
            return .duplicate(of: existing)
        }
    }

    func unregister(_ session: PeerSession) {
        state.withLockedValue { state in
            if state.kept[session.remote] === session { state.kept[session.remote] = nil }
        }
    }

    private func prefers(_ candidate: PeerSession, over existing: PeerSession) -> Bool {
        let candidateRank = dialledBySmallerKey(candidate)
        let existingRank = dialledBySmallerKey(existing)
        return candidateRank == existingRank ? true : candidateRank
    }

    private func dialledBySmallerKey(_ session: PeerSession) -> Bool {
        session.isInitiator ? localNode < session.remote : session.remote < localNode
    }

    // MARK: Dials

    /// Joins a dial to `remote` that is already under way, or returns the session already
    /// kept, so that one node never races itself with two connections to the same peer.
    func beginDial(to remote: NodeID, on eventLoop: any EventLoop) throws(SessionError) -> DialStart {
        let start: DialStart? = state.withLockedValue { state in
            if state.shuttingDown { return nil }
            if let existing = state.kept[remote] { return .existing(existing) }
            if let running = state.dials[remote] { return .joined(running) }
            let promise = eventLoop.makePromise(of: PeerSession.self)
            state.dials[remote] = promise.futureResult
            return .started(promise)
        }
        guard let start else { throw .shuttingDown }
        return start
    }

    func endDial(to remote: NodeID, _ future: EventLoopFuture<PeerSession>) {
        state.withLockedValue { state in
            if state.dials[remote] === future { state.dials[remote] = nil }
        }
    }

    // MARK: Lifecycle

    func addListener(_ channel: any Channel) throws(SessionError) {
        let added = state.withLockedValue { state in
            if state.shuttingDown { return false }
            state.listeners.append(channel)
            return true
        }
        guard added else { throw .shuttingDown }
    }

    /// Refuses everything new from now on and hands back what must be closed.
    func beginShutdown() -> (listeners: [any Channel], connections: [Connection]) {
        state.withLockedValue { state in
            state.shuttingDown = true
            let listeners = state.listeners
            state.listeners = []
            return (listeners, Array(state.connections.values))
        }
    }

    /// Drops the delegate once every session has reported its close, which also breaks the
    /// reference cycle a delegate that owns the service would form.
    func finishShutdown() {
        state.withLockedValue { $0.delegate = nil }
    }
}
