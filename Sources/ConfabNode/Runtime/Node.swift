import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabStore
import ConfabSync
import ConfabWire
import Foundation
import Logging
import NIOCore
import NIOPosix

/// A running node: the store, the sync engine, sessions and discovery, and what watchers
/// see. Network callbacks arrive on NIO threads and are queued into one ordered stream,
/// so messages of a session are handled in order and the engine is touched by one task.
public actor Node {
    public nonisolated let local: LocalNode
    public nonisolated let options: NodeOptions
    let engine: SyncEngine
    let group: MultiThreadedEventLoopGroup
    let logger: Logger
    let operations: NodeOperations
    private let lock: NodeLock
    var sessions: SessionService!
    let blockList = BlockList()
    private var discovery: DiscoveryService?
    private var control: ControlServer?
    private(set) var listenAddress: SocketAddress?
    private let inbox: AsyncStream<NodeInput>
    private let inboxContinuation: AsyncStream<NodeInput>.Continuation
    private var presence: [NodeID: PeerPresence] = [:]
    /// Peers this node's person chose or shares a conversation with (the store's redial
    /// candidates), re-read every housekeeping tick: beacons from them are dialled first.
    private var chosenPeers: Set<NodeID> = []
    var beaconDials = BeaconDialPolicy()
    private var receiptPacer = ReceiptPacer()
    /// Keys in the presence map at most; the least recently seen without a session give way.
    static let maxPresence = 1024
    private var watchers: [UInt64: AsyncStream<NodeEvent>.Continuation] = [:]
    private var reportedStatus: [ConversationID: [UInt64: DeliveryStatus]] = [:]
    private var nextWatcher: UInt64 = 0
    private var storeVersion: Double = 0
    private var stopped = false
    private var tasks: [Task<Void, Never>] = []

    /// A peer is offline after this long without a beacon or a session.
    static let offlineAfter: TimeInterval = 4.5

    public init(options: NodeOptions) throws {
        self.options = options
        logger = options.logger
        lock = try NodeLock(directory: options.directory)
        local = try LocalNode.open(options.directory)
        engine = SyncEngine(store: local.store, role: options.role, logger: options.logger)
        operations = try NodeOperations(options: options, store: local.store)
        let admission: any EntryAdmission
        if let policy = operations.policy {
            admission = policy
        } else {
            admission = try AuthorQuota(limit: options.authorQuotaBytes, store: local.store, logger: options.logger)
        }
        engine.admission = admission
        // A relay named with its key in `--peer KEY@HOST:PORT` was chosen by the person too.
        let named = Set(options.staticPeers.compactMap { try? StaticPeer($0).key })
        engine.trustsRelay = Self.relayTrust(
            store: local.store, networkKey: options.networkKey,
            allow: named.union(operations.policy?.configuration.allow ?? []))
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        (inbox, inboxContinuation) = AsyncStream.makeStream(of: NodeInput.self)
    }

    public nonisolated var me: NodeID { local.me }

    /// Starts listening, discovery and static peers; returns the bound TCP address.
    @discardableResult
    public func start() async throws -> SocketAddress {
        let delegate = SessionBridge(continuation: inboxContinuation)
        var configuration = SessionConfiguration(
            identity: local.identity, networkKey: options.networkKey, logger: logger)
        configuration.maxSessions = 64
        configuration.admit = { [blockList] in !blockList.contains($0) }
        // Keys the person chose on the command line, or in the store, keep a way in when
        // strangers hold every session.
        let chosen = Set(options.staticPeers.compactMap { try? StaticPeer($0).key })
            .union(operations.policy?.configuration.allow ?? [])
        configuration.isKnown = { [store = local.store] in chosen.contains($0) || (try? store.isKnownPeer($0)) == true }
        try reloadTrust()
        configuration.entryRateLimiter = operations.rateLimiter
        // Every session's messages wait in the one inbox this actor works through: each
        // session may fill only its own share of it.
        configuration.inboxLimit = InboxLimit()
        sessions = SessionService(configuration: configuration, group: group, delegate: delegate)
        let address = try await sessions.listen(host: options.listenHost, port: options.listenPort)
        listenAddress = address
        let name = try local.displayName()
        logger.info(
            "node \(me.shortHex) (\(name)) listening on \(address.display)",
            metadata: ["role": "\(options.role.rawValue)"])

        if options.discovery {
            let targets =
                try options.beaconTargets.isEmpty
                ? DiscoveryConfiguration.defaultBroadcastTargets(port: options.discoveryPort)
                : options.beaconTargets.map { try Self.socketAddress($0, defaultPort: options.discoveryPort) }
            var configuration = DiscoveryConfiguration(
                identity: local.identity, networkKey: options.networkKey,
                tcpPort: UInt16(address.port ?? options.listenPort), role: options.role, targets: targets,
                logger: logger)
            configuration.port = options.discoveryPort
            let discovery = DiscoveryService(
                configuration: configuration,
                group: group,
                onBeacon: { [continuation = inboxContinuation] beacon, from in
                    continuation.yield(.beacon(beacon, from))
                })
            try await discovery.start()
            self.discovery = discovery
            if targets.isEmpty {
                logger.warning(
                    "no interface to broadcast beacons on (no up, non-loopback IPv4 interface): peers will not find this node; use --beacon ADDR or --peer HOST:PORT"
                )
            } else {
                logger.info("discovery on UDP \(options.discoveryPort), beacons to \(targets.map(\.display))")
            }
        }

        control = try await ControlServer.start(node: self, group: group, logger: logger)
        try await startOperations()
        storeVersion = try currentStoreVersion()
        tasks.append(Task { [weak self] in await self?.processInbox() })
        tasks.append(Task { [weak self] in await self?.housekeeping() })
        for peer in options.staticPeers {
            tasks.append(Task { [weak self] in await self?.keepDialing(peer) })
        }
        // Peers met before are dialled at their last known address too, so a node finds its
        // peers again after a restart even where broadcasts do not reach.
        let staticKeys = Set(options.staticPeers.compactMap { try? StaticPeer($0).key })
        // Only peers the person chose or shares a conversation with: a stranger's Hello
        // must not turn into a dial loop after every restart (strangers are forgotten too).
        try local.store.pruneStrangers()
        let candidates = try local.store.redialCandidates()
        chosenPeers = Set(try local.store.chosenPeers().map(\.id))
        for peer in candidates where !staticKeys.contains(peer.id) {
            guard let address = peer.address else { continue }
            let target = "\(peer.id.hex)@\(address)"
            tasks.append(Task { [weak self] in await self?.keepDialing(target) })
        }
        return address
    }

    /// Says goodbye to every peer and closes everything; the store is consistent at every
    /// commit, so nothing more needs flushing.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        for task in tasks { task.cancel() }
        await control?.stop()
        await stopOperations()
        await discovery?.stop()
        await sessions?.shutdown()
        inboxContinuation.finish()
        for watcher in watchers.values { watcher.finish() }
        watchers = [:]
        try? await group.shutdownGracefully()
        logger.info("node stopped")
    }

    // MARK: Inputs

    private func processInbox() async {
        for await input in inbox {
            // Handled (or dropped): the session may read on once enough is consumed.
            defer { if case .message(let session, let message) = input { session.consumed(message) } }
            // An answer to Want can wait: one the peer is not reading is not written.
            if case .message(let session, .want) = input, !session.isWritable { continue }
            do {
                try await handle(input)
            } catch {
                logger.error("node error: \(error)")
            }
        }
    }

    private func handle(_ input: NodeInput) async throws {
        switch input {
        case .opened(let session):
            guard admitOpened(session), admitSession(session) else { return }
            engine.peerConnected(session.remote)
            // An accepted connection comes from the dialler's ephemeral port, which is no
            // address to dial: where it accepts sessions is known once its Hello arrives.
            updatePresence(
                session.remote, connected: true, address: session.isInitiator ? session.remoteAddress?.display : nil)
            session.send(
                .hello(
                    .init(
                        displayName: try local.displayName(), role: options.role,
                        listenPort: UInt16(listenAddress?.port ?? 0))))
        case .message(let session, let message):
            guard !blockList.contains(session.remote), !isRefused(session) else { return }
            if case .bye(let reason) = message { noteBye(reason, from: session) }
            if case .hello(let hello) = message { try rememberPeer(session.remote, hello: hello, session: session) }
            let output = try engine.handle(message, from: session.remote)
            apply(output, replyTo: session)
        case .closed(let session, let error):
            guard !forgetRefused(session) else { return }
            engine.peerDisconnected(session.remote)
            if let error { logger.info("session with \(session.remote.shortHex) closed: \(error)") }
            updatePresence(session.remote, connected: false, address: nil)
        case .beacon(let beacon, let from):
            guard !blockList.contains(beacon.node), let host = Self.host(of: from) else { return }
            // A beacon's key is free to make and its source address unauthenticated (anyone
            // can replay one from elsewhere): it is only a hint where to dial, within the
            // limits of BeaconDialPolicy. A stranger shows in presence once a session with it
            // opens; a peer's address is recorded once a handshake succeeds.
            let chosen = chosenPeers.contains(beacon.node)
            if chosen || presence[beacon.node] != nil {
                updatePresence(beacon.node, connected: nil, address: nil, seen: true)
            }
            if sessions.session(with: beacon.node) == nil, !avoidsDialing(beacon.node),
                beaconDials.mayDial(beacon.node, at: "\(host):\(beacon.tcpPort)", known: chosen, now: .now)
            {
                dialFromBeacon(host: host, port: Int(beacon.tcpPort), remote: beacon.node)
            }
        }
    }

    /// Sends what the engine decided and publishes what happened.
    func apply(_ output: SyncOutput, replyTo session: PeerSession? = nil) {
        if let session, !output.replies.isEmpty { session.send(output.replies) }
        for (peer, messages) in output.pushes {
            sessions.session(with: peer)?.send(messages)
        }
        if let session, let reason = output.misbehavior {
            logger.warning("closing session with \(session.remote.shortHex): \(reason)")
            session.close(reason: "protocol violation")
        }
        publish(output)
        recordOperations(output, from: session)
        if !output.pendingReceipts.isEmpty { acknowledgeDelivery(output.pendingReceipts) }
        storeVersion = (try? currentStoreVersion()) ?? storeVersion
    }

    /// Writes the delivered receipts that are due (at most one per conversation every
    /// `ReceiptPacer.interval`); the others follow on a later housekeeping tick.
    private func acknowledgeDelivery(_ arrived: Set<ConversationID>) {
        let due = receiptPacer.due(arrived, now: .now)
        guard !due.isEmpty else { return }
        do {
            apply(try engine.acknowledgeDelivery(due))
        } catch {
            logger.error("could not write a delivered receipt: \(error)")
        }
    }

    private func publish(_ output: SyncOutput) {
        guard !watchers.isEmpty else { return }
        let store = local.store
        for entry in output.appended where entry.kind == .message {
            if let message = try? store.message(entry.conversationID, author: entry.author, seq: entry.seq) {
                emit(.message(message))
            }
        }
        // Only changes: a receipt covers many messages, most of which moved long ago.
        for conversation in output.statusChanged {
            for (seq, status) in ((try? store.myStatuses(conversation)) ?? [:]).sorted(by: { $0.key < $1.key })
            where reportedStatus[conversation]?[seq] != status {
                reportedStatus[conversation, default: [:]][seq] = status
                emit(.status(conversation: conversation, seq: seq, status: status))
            }
        }
    }

    func emit(_ event: NodeEvent) {
        for watcher in watchers.values { watcher.yield(event) }
    }

    /// Events from now on, until the stream is dropped.
    public func events() -> AsyncStream<NodeEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: NodeEvent.self, bufferingPolicy: .bufferingNewest(10_000))
        nextWatcher += 1
        let id = nextWatcher
        watchers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeWatcher(id) } }
        return stream
    }

    private func removeWatcher(_ id: UInt64) { watchers[id] = nil }

    // MARK: Local writes

    /// Entries written here (through this node) go out at once.
    public func didWrite(_ entries: [Entry]) throws {
        var output = try engine.localAppended(entries)
        output.appended = entries
        apply(output)
    }

    /// Re-announces clocks to every peer and redials known addresses now, without waiting
    /// for a beacon or a dial loop's backoff.
    public func resync() throws {
        apply(try engine.resyncAll())
        discovery?.announceNow()
        redialKnownPeers()
    }

    /// Another process (a CLI command without the node) may write to the store; a change
    /// in the total of all heads means new entries to offer.
    private func housekeeping() async {
        var ticks = 0
        while !Task.isCancelled, !stopped {
            try? await Task.sleep(for: .milliseconds(300))
            ticks += 1
            if ticks % 1000 == 0 { _ = try? local.store.pruneStrangers() }
            if receiptPacer.isWaiting { acknowledgeDelivery([]) }
            // Who counts as chosen changes only by hand or with a new conversation: every 3 s.
            if ticks % 10 == 0 { chosenPeers = Set(((try? local.store.chosenPeers()) ?? []).map(\.id)) }
            if let version = try? currentStoreVersion(), version != storeVersion {
                storeVersion = version
                if let output = try? engine.resyncAll() { apply(output) }
            }
            expirePresence()
            do { try reloadTrust() } catch { logger.error("could not read the block list: \(error)") }
            updateOperationalMetrics(sessions: sessions, online: presence.values.filter(\.online).count)
        }
    }

    private func currentStoreVersion() throws -> Double {
        try local.store.headTotal()
    }

    // MARK: Peers

    private func rememberPeer(_ id: NodeID, hello: SessionMessage.Hello, session: PeerSession) throws {
        let address = Self.listenAddress(host: session.remoteAddress.flatMap(Self.host(of:)), port: hello.listenPort)
        if let holder = try local.store.notePeerSeen(id, suggestedName: hello.displayName, address: address) {
            warnNameClaim(id, holder: holder)
        }
        if let address { presence[id]?.address = address }
        presence[id]?.role = hello.role.rawValue
        if let address { presence[id]?.address = address }
        if let name = try local.store.peer(id)?.name { presence[id]?.name = name }
    }

    private func updatePresence(_ id: NodeID, connected: Bool?, address: String?, seen: Bool = false) {
        guard id != me else { return }
        let known = (try? local.store.peer(id)) ?? nil
        if presence[id] == nil { makeRoomInPresence() }
        refreshPresence(id, known: known, connected: connected, address: address, seen: seen)
    }

    private func refreshPresence(_ id: NodeID, known: Peer?, connected: Bool?, address: String?, seen: Bool) {
        let name = known?.name
        var entry =
            presence[id]
            ?? PeerPresence(
                id: id, name: name ?? id.shortHex, online: false, connected: false, address: nil, lastSeen: nil,
                role: "person")
        let wasOnline = entry.online
        if let connected { entry.connected = connected }
        if let address { entry.address = address }
        if seen || connected == true { entry.lastSeen = Date() }
        if let name { entry.name = name }
        entry = withTrust([entry], known: known.map { [$0] } ?? [])[0]
        entry.online =
            entry.connected || (entry.lastSeen.map { Date().timeIntervalSince($0) < Self.offlineAfter } ?? false)
        presence[id] = entry
        if entry.online != wasOnline { emit(entry.online ? .peerOnline(entry) : .peerOffline(entry)) }
    }

    /// Keeps the map within `maxPresence`: the entry seen longest ago without a session goes.
    private func makeRoomInPresence() {
        guard presence.count >= Self.maxPresence else { return }
        let oldest = presence.values.filter { !$0.connected }.min {
            ($0.lastSeen ?? .distantPast) < ($1.lastSeen ?? .distantPast)
        }
        if let oldest { presence[oldest.id] = nil }
    }

    /// Every tick: who went offline. One query for all the names and trust, not one each.
    private func expirePresence() {
        let known = Dictionary(((try? local.store.peers()) ?? []).map { ($0.id, $0) }) { first, _ in first }
        for id in presence.keys { refreshPresence(id, known: known[id], connected: nil, address: nil, seen: false) }
    }

    public func peers() -> [PeerPresence] {
        let known = (try? local.store.peers()) ?? []
        var result = known.map { peer in
            presence[peer.id]
                ?? PeerPresence(
                    id: peer.id, name: peer.name, online: false, connected: false, address: peer.address,
                    lastSeen: peer.lastSeenAt, role: "person")
        }
        result += presence.values.filter { p in !known.contains { $0.id == p.id } }
        return withTrust(result, known: known).sorted {
            $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending
        }
    }

    public func status() throws -> NodeStatus {
        NodeStatus(
            id: me, name: try local.displayName(), role: options.role.rawValue,
            listen: listenAddress?.display ?? "", discovery: options.discovery,
            sessions: sessions.sessions.map { session in
                NodeStatus.Session(
                    peer: session.remote, name: presence[session.remote]?.name ?? session.remote.shortHex,
                    address: session.remoteAddress?.display ?? "", initiator: session.isInitiator)
            },
            outbox: try local.store.outboxCount(),
            outstanding: (try? engine.outstandingEntries()) ?? 0)
    }

    /// Who is trusted as a relay when it says it is one (Protocol.md §14.1): on a private
    /// network anyone holding its key, since the key was shared by hand; on the default
    /// network, whose key anyone can compute, only keys this node's person added or
    /// verified, named in `--peer KEY@HOST:PORT`, or on a relay's `--allow` list.
    static func relayTrust(
        store: ConfabStore, networkKey: NetworkKey, allow: Set<NodeID>
    ) -> (NodeID) -> Bool {
        let privateNetwork = networkKey != .default
        return { peer in
            if privateNetwork || allow.contains(peer) { return true }
            if (try? store.peer(peer))??.trust == .verified { return true }
            return (try? store.peersAddedByHand().contains(peer)) ?? false
        }
    }

    // MARK: Dialing

    func hasNoSession(with peer: NodeID) -> Bool { sessions.session(with: peer) == nil }

    private func dialFromBeacon(host: String, port: Int, remote: NodeID) {
        let sessions = self.sessions!
        let logger = self.logger
        Task { [weak self] in
            var connected = false
            do {
                _ = try await sessions.dial(host: host, port: port, remote: remote)
                connected = true
            } catch {
                logger.debug("dial \(remote.shortHex) at \(host):\(port) failed: \(error)")
            }
            await self?.beaconDialFinished(remote, connected: connected)
        }
    }

    private func beaconDialFinished(_ remote: NodeID, connected: Bool) {
        beaconDials.finished(remote, connected: connected, now: .now)
    }

    func dial(host: String, port: Int, remote: NodeID) {
        let sessions = self.sessions!
        let logger = self.logger
        Task {
            do {
                _ = try await sessions.dial(host: host, port: port, remote: remote)
            } catch {
                logger.debug("dial \(remote.shortHex) at \(host):\(port) failed: \(error)")
            }
        }
    }

    /// Static peers: dialled until connected, then watched, with exponential backoff.
    /// Without a key in the address, every known peer's key is tried in turn (the secret
    /// handshake needs the server's key), the address's last known owner first.
    private func keepDialing(_ text: String) async {
        var backoff: Double = 1
        while !Task.isCancelled, !stopped {
            do {
                let target = try StaticPeer(text)
                let candidates = try target.key.map { [$0] } ?? candidateKeys(for: target)
                var connected = false
                for key in candidates where sessions.session(with: key) == nil && !blockList.contains(key) {
                    do {
                        _ = try await sessions.dial(host: target.host, port: target.port, remote: key)
                        connected = true
                        break
                    } catch {
                        logger.debug("static peer \(text) as \(key.shortHex): \(error)")
                    }
                }
                if connected || candidates.contains(where: { sessions.session(with: $0) != nil }) { backoff = 1 }
            } catch {
                logger.error("static peer \(text): \(error)")
                return
            }
            try? await Task.sleep(for: .seconds(backoff))
            backoff = min(backoff * 2, 30)
        }
    }

    /// At most 16 keys, chosen peers only: the address's last known owner first.
    private func candidateKeys(for target: StaticPeer) throws -> [NodeID] {
        let peers = Array(try local.store.chosenPeers().prefix(16))
        let address = "\(target.host):\(target.port)"
        return peers.filter { $0.address == address }.map(\.id) + peers.filter { $0.address != address }.map(\.id)
    }

    static func socketAddress(_ text: String, defaultPort: Int) throws -> SocketAddress {
        let (host, port) = try StaticPeer.split(text, defaultPort: defaultPort)
        do {
            return try SocketAddress(ipAddress: host, port: port)
        } catch {
            throw NodeError.badAddress(text, "not an IP address")
        }
    }

    static func host(of address: SocketAddress) -> String? { address.ipAddress }

    /// Where a peer accepts sessions: the IP its session or beacon came from, with the port
    /// it names (Hello's `listen_port`, a beacon's `tcp_port`), never the TCP source port.
    /// Nil for port 0 (a Hello saying the peer accepts no sessions): nothing to remember.
    static func listenAddress(host: String?, port: UInt16) -> String? {
        guard let host, port != 0 else { return nil }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// What arrives from the network, in order.
enum NodeInput: Sendable {
    case opened(PeerSession)
    case message(PeerSession, SessionMessage)
    case closed(PeerSession, (any Error)?)
    case beacon(Beacon, SocketAddress)
}

/// Turns session callbacks (on NIO threads) into ordered node inputs. The stream itself is
/// unbounded, but each session stops reading while its messages in it are not consumed
/// (`SessionConfiguration.inboxLimit`), so what sessions queue here is bounded per session.
final class SessionBridge: SessionDelegate {
    let continuation: AsyncStream<NodeInput>.Continuation

    init(continuation: AsyncStream<NodeInput>.Continuation) {
        self.continuation = continuation
    }

    func sessionDidOpen(_ session: PeerSession) { continuation.yield(.opened(session)) }
    func session(_ session: PeerSession, didReceive message: SessionMessage) {
        continuation.yield(.message(session, message))
    }
    func sessionDidClose(_ session: PeerSession, error: (any Error)?) { continuation.yield(.closed(session, error)) }
}

/// `HOST:PORT` or `KEY@HOST:PORT`.
struct StaticPeer {
    let key: NodeID?
    let host: String
    let port: Int

    init(_ text: String) throws {
        var rest = Substring(text)
        if let at = rest.firstIndex(of: "@") {
            guard let key = NodeID(hex: String(rest[..<at])) else {
                throw NodeError.badAddress(text, "bad key before @")
            }
            self.key = key
            rest = rest[rest.index(after: at)...]
        } else {
            key = nil
        }
        (host, port) = try Self.split(String(rest), defaultPort: 7461)
    }

    static func split(_ text: String, defaultPort: Int) throws -> (String, Int) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return (host, defaultPort) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) else {
                throw NodeError.badAddress(text, "bad port")
            }
            return (host, port)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard !parts.isEmpty, !parts[0].isEmpty, parts.count <= 2 else {
            throw NodeError.badAddress(text, "want HOST:PORT")
        }
        if parts.count == 1 { return (String(parts[0]), defaultPort) }
        guard let port = Int(parts[1]), (1...65535).contains(port) else { throw NodeError.badAddress(text, "bad port") }
        return (String(parts[0]), port)
    }
}

/// A snapshot of the node for `confab status`.
public struct NodeStatus: Sendable, Codable, Equatable {
    public struct Session: Sendable, Codable, Equatable {
        public let peer: NodeID
        public let name: String
        public let address: String
        public let initiator: Bool
    }

    public let id: NodeID
    public let name: String
    public let role: String
    public let listen: String
    public let discovery: Bool
    public let sessions: [Session]
    public let outbox: Int
    /// Entries peers announced that this node does not hold yet (a sync in progress).
    public let outstanding: Int
}

extension SocketAddress {
    /// `127.0.0.1:7461` rather than NIO's debugging form.
    var display: String {
        guard let ip = ipAddress, let port else { return "\(self)" }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}
