import ConfabModel
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// What a `SessionService` shares with the handlers of its connections: the live
/// connections, the session kept for each peer, dials in flight, counters and the delegate.
/// Every decision that two connections could race on is taken here, under one lock.
///
/// Three budgets, so that no kind of connection can take another's place (Protocol.md
/// §10.6): accepted connections in their handshake (in all and per source address), this
/// node's own dials under way, and established sessions, where a known key may make an
/// unknown key's session give way.
final class SessionCore: Sendable {
    struct Connection: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<SessionHandler>
    }

    enum Origin {
        /// Accepted by a listener from this IP address: counts against the handshake budgets
        /// until its handshake is done.
        case accepted(from: String)
        /// Dialled by this node: counted by `beginDial`, never against accepted connections.
        case dialled
    }

    enum Registration {
        /// The first session with this peer: keep it.
        case kept
        /// Keep the new session; the old one must close.
        case replacing(PeerSession)
        /// Keep the new session, which took the place of this session with an unknown key at
        /// the session limit; that one must close.
        case evicting(PeerSession)
        /// The new session lost the duplicate rule to this one and must close.
        case duplicate(of: PeerSession)
        case refused(SessionError)
    }

    enum DialStart {
        case existing(PeerSession)
        /// A dial to the same key under way; `elsewhere` if it goes to another address.
        case joined(EventLoopFuture<PeerSession>, elsewhere: Bool)
        case started(EventLoopPromise<PeerSession>)
    }

    /// What the session limit says about one more session with a key.
    private enum Room {
        /// Under the limit, or a session with this key is kept already (the duplicate rule
        /// decides which stays, and the count does not change).
        case free
        /// At the limit; this session with an unknown key is the one to give way.
        case evicting(PeerSession)
        case full
    }

    /// One step of a rule run under the lock: done, or in need of knowing whether some keys
    /// are known before it can decide.
    private enum Step<Outcome> {
        case done(Outcome)
        case ask([NodeID])
    }

    private struct Tracked {
        let connection: Connection
        /// The source address of an accepted connection still in its handshake; nil once the
        /// handshake is done, and for dials.
        var pendingFrom: String?
    }

    private struct State {
        var delegate: (any SessionDelegate)?
        var connections: [UInt64: Tracked] = [:]
        var pendingHandshakes = 0
        var pendingHandshakesFrom: [String: Int] = [:]
        var kept: [NodeID: PeerSession] = [:]
        var dials: [NodeID: (result: EventLoopFuture<PeerSession>, address: String)] = [:]
        var listeners: [any Channel] = []
        var shuttingDown = false
        var statistics = SessionStatistics()

        /// Gives back the handshake slot of connection `id`, if it holds one. Safe to repeat.
        mutating func endHandshake(_ id: UInt64) {
            guard let source = connections[id]?.pendingFrom else { return }
            connections[id]?.pendingFrom = nil
            pendingHandshakes -= 1
            pendingHandshakesFrom[source, default: 1] -= 1
            if pendingHandshakesFrom[source] == 0 { pendingHandshakesFrom[source] = nil }
        }
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

    var dialsUnderWay: Int { state.withLockedValue { $0.dials.count } }

    /// Connections not closed yet, dialled or accepted, in their handshake or in a session.
    /// A connection leaves only after its close has gone through its handlers, so once this
    /// is down to the sessions kept, nothing more will be reported for the others.
    var openConnections: Int { state.withLockedValue { $0.connections.count } }

    // MARK: Connections

    /// Tracks a new connection, or refuses it. An accepted one takes a handshake slot, within
    /// `maxPendingHandshakesPerAddress` for its source and `maxPendingHandshakes` in all.
    func admit(id: UInt64, _ connection: Connection, origin: Origin) throws(SessionError) {
        let perAddress = configuration.maxPendingHandshakesPerAddress
        let inAll = configuration.maxPendingHandshakes
        let refusal: SessionError? = state.withLockedValue { state in
            var pendingFrom: String?
            if case .accepted(let source) = origin {
                state.statistics.accepted += 1
                pendingFrom = source
            }
            let refusal: SessionError? =
                if state.shuttingDown {
                    .shuttingDown
                } else if let source = pendingFrom, state.pendingHandshakesFrom[source, default: 0] >= perAddress {
                    .tooManyHandshakesFromAddress(limit: perAddress)
                } else if pendingFrom != nil, state.pendingHandshakes >= inAll {
                    .tooManyHandshakes(limit: inAll)
                } else {
                    nil
                }
            if refusal != nil {
                state.statistics.refused += 1
                return refusal
            }
            if let source = pendingFrom {
                state.pendingHandshakes += 1
                state.pendingHandshakesFrom[source, default: 0] += 1
            }
            state.connections[id] = Tracked(connection: connection, pendingFrom: pendingFrom)
            return nil
        }
        if let refusal { throw refusal }
    }

    func release(id: UInt64) {
        state.withLockedValue { state in
            state.endHandshake(id)
            state.connections[id] = nil
        }
    }

    // MARK: One session per peer, and the session limit

    /// Asked by an accepting handshake once it has learnt the client's key, before it sends
    /// message 4: a session `register` would refuse is refused there instead, so that the
    /// client sees the same refusal as for any other (Protocol.md §3.10). `register` still
    /// decides, since other sessions may come or go in between.
    func refusal(toEstablishWith remote: NodeID) -> SessionError? {
        let limit = configuration.maxSessions
        return decide { state, known, final -> Step<SessionError?> in
            if state.shuttingDown { return .done(.shuttingDown) }
            switch room(for: remote, in: state, known: known, final: final) {
            case .ask(let keys):
                return .ask(keys)
            case .done(.free), .done(.evicting):
                return .done(nil)
            case .done(.full):
                state.statistics.refused += 1
                return .done(.tooManySessions(limit: limit))
            }
        }
    }

    /// Decides whether a session that just completed its handshake is kept, and gives back
    /// its handshake slot.
    ///
    /// With the same peer (Protocol.md §10.5): of two sessions, the one dialled by the node
    /// with the smaller key wins; if the same node dialled both, the newer wins, since the
    /// older is most likely a connection the peer has already given up on.
    ///
    /// With a new peer at `maxSessions` (§10.6): a known key takes the place of the oldest
    /// session with an unknown key, the one with the smallest connection id (connection ids
    /// only grow, so this is the order connections were opened in, whatever the timing of
    /// handshakes); anything else is refused. Which keys are known is asked at that moment,
    /// so a peer that became known during its session is not evicted.
    func register(_ session: PeerSession) -> Registration {
        let limit = configuration.maxSessions
        return decide { state, known, final -> Step<Registration> in
            state.endHandshake(session.id)
            if state.shuttingDown { return .done(.refused(.shuttingDown)) }
            if let existing = state.kept[session.remote] {
                state.statistics.duplicates += 1
                guard prefers(session, over: existing) else { return .done(.duplicate(of: existing)) }
                state.kept[session.remote] = session
                return .done(.replacing(existing))
            }
            switch room(for: session.remote, in: state, known: known, final: final) {
            case .ask(let keys):
                return .ask(keys)
            case .done(.free):
                state.kept[session.remote] = session
                return .done(.kept)
            case .done(.evicting(let victim)):
                state.kept[victim.remote] = nil
                state.kept[session.remote] = session
                state.statistics.evicted += 1
                return .done(.evicting(victim))
            case .done(.full):
                state.statistics.refused += 1
                return .done(.refused(.tooManySessions(limit: limit)))
            }
        }
    }

    /// The session limit's rule, shared by every decision that needs it so that they agree.
    /// Whether a key is known may take a store read, so the rule asks for it rather than
    /// finding out under the lock. On the final run a kept key not asked about yet (its
    /// session arrived meanwhile) counts as known, so it is never evicted unasked.
    private func room(for remote: NodeID, in state: State, known: [NodeID: Bool], final: Bool) -> Step<Room> {
        if state.kept[remote] != nil || state.kept.count < configuration.maxSessions { return .done(.free) }
        guard let remoteIsKnown = known[remote] else { return final ? .done(.full) : .ask([remote]) }
        guard remoteIsKnown else { return .done(.full) }
        let unasked = state.kept.keys.filter { known[$0] == nil }
        if !unasked.isEmpty && !final { return .ask(unasked) }
        let victim = state.kept.values.filter { known[$0.remote] == false }.min { $0.id < $1.id }
        return .done(victim.map(Room.evicting) ?? .full)
    }

    /// Runs `rule` under the lock until it is done, asking `configuration.isKnown` outside
    /// the lock whenever it needs to know about keys. The third run is final, so a rule
    /// that keeps meeting new sessions still ends.
    private func decide<Outcome>(
        _ rule: (inout State, _ known: [NodeID: Bool], _ final: Bool) -> Step<Outcome>
    ) -> Outcome {
        var known: [NodeID: Bool] = [:]
        var run = 0
        while true {
            run += 1
            let final = run >= 3
            switch state.withLockedValue({ rule(&$0, known, final) }) {
            case .done(let outcome):
                return outcome
            case .ask(let keys):
                for key in keys where known[key] == nil { known[key] = configuration.isKnown(key) }
            }
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
    /// A new dial (to `address`, `host:port`) must fit within `maxDials`, and is refused
    /// before it sends anything when the session limit would refuse its session anyway.
    func beginDial(
        to remote: NodeID, at address: String, on eventLoop: any EventLoop
    ) throws(SessionError)
        -> DialStart
    {
        let dialLimit = configuration.maxDials
        let sessionLimit = configuration.maxSessions
        let start = decide { state, known, final -> Step<Result<DialStart, SessionError>> in
            if state.shuttingDown { return .done(.failure(.shuttingDown)) }
            if let existing = state.kept[remote] { return .done(.success(.existing(existing))) }
            if let running = state.dials[remote] {
                return .done(.success(.joined(running.result, elsewhere: running.address != address)))
            }
            guard state.dials.count < dialLimit else { return .done(.failure(.tooManyDials(limit: dialLimit))) }
            switch room(for: remote, in: state, known: known, final: final) {
            case .ask(let keys):
                return .ask(keys)
            case .done(.full):
                return .done(.failure(.tooManySessions(limit: sessionLimit)))
            case .done(.free), .done(.evicting):
                let promise = eventLoop.makePromise(of: PeerSession.self)
                state.dials[remote] = (promise.futureResult, address)
                return .done(.success(.started(promise)))
            }
        }
        switch start {
        case .success(let start): return start
        case .failure(let error): throw error
        }
    }

    func endDial(to remote: NodeID, _ future: EventLoopFuture<PeerSession>) {
        state.withLockedValue { state in
            if state.dials[remote]?.result === future { state.dials[remote] = nil }
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
    func beginShutdown() -> (
        listeners: [any Channel], connections: [Connection], dials: [EventLoopFuture<PeerSession>]
    ) {
        state.withLockedValue { state in
            state.shuttingDown = true
            let listeners = state.listeners
            state.listeners = []
            return (listeners, state.connections.values.map(\.connection), state.dials.values.map(\.result))
        }
    }

    /// Drops the delegate once every session has reported its close, which also breaks the
    /// reference cycle a delegate that owns the service would form.
    func finishShutdown() {
        state.withLockedValue { $0.delegate = nil }
    }
}
