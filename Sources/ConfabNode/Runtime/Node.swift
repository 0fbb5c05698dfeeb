import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabStore
import ConfabSync
import ConfabWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// A running node: it routes. Network inputs (sessions opening, messages, closing, beacons)
/// arrive on NIO threads and are queued into one ordered stream; the node hands each to the
/// sync engine and sends what the engine decided. Who is online (`PresenceTable`), every
/// dial (`Dialer`), what watchers see (`EventHub`) and the relay's policy and metrics
/// (`NodeOperations`) each live in their own type.
///
/// Its parts (sessions, discovery, metrics, housekeeping, the control socket and this
/// router) run as services of one lifecycle group (Node+Lifecycle).
public actor Node {
    public nonisolated let local: Profile
    public nonisolated let options: NodeOptions
    let engine: SyncEngine
    /// Files' content: what to fetch from whom, what to serve (Protocol.md §17).
    let files: FileExchange
    nonisolated let writer: ChunkWriter
    /// When each file's progress was last published, to pace the events.
    var fileEventAt: [FileID: ContinuousClock.Instant] = [:]
    var filePeerEventAt: [String: ContinuousClock.Instant] = [:]
    let group: MultiThreadedEventLoopGroup
    let logger: Logger
    let operations: NodeOperations
    nonisolated let sessions: SessionService
    nonisolated let dialer: Dialer
    nonisolated let hub = EventHub()
    nonisolated let blockList = BlockList()
    nonisolated let incompatiblePeers = IncompatiblePeers()
    /// The link offer a front end opened (`link_offer`), at most one.
    nonisolated let frontEndLinkOffer = FrontEndLinkOffer()
    let lock: NodeLock
    private let inbox: AsyncStream<NodeInput>
    let inboxContinuation: AsyncStream<NodeInput>.Continuation
    var presence = PresenceTable()
    /// Who peers say is typing where, and when this node last said its person is.
    var typingTable = TypingTable()
    /// The rooms peers in session said they joined.
    var roomDirectory = RoomDirectory()
    /// The large groups held, as the engine was last told (Node+LargeGroups).
    var largeGroups: Set<ConversationID> = []
    /// When something last happened that housekeeping may have to follow up, and its
    /// sleep while idle (`wakeHousekeeping`).
    var lastActivity = ContinuousClock.now
    var housekeepingNap: Task<Void, Never>?
    var typingPacer = TypingPacer(interval: TypingPacer.enforcedInterval)
    private var beaconAnswers = BeaconAnswerPolicy()
    /// Peers this node's person chose or shares a conversation with (the store's redial
    /// candidates), re-read every few seconds: beacons from them are dialled first.
    var chosenPeers: Set<NodeID> = []
    /// Peers whose session this node ended to say something only a new `Hello` says (my
    /// new name): dialled again once the session has closed.
    var redialOnClose: Set<NodeID> = []
    /// Whom to seek sessions with, and where beacons said keys listen.
    var needs = SessionNeeds()
    var discovery: DiscoveryService?
    var control: ControlServer?
    var listenAddress: SocketAddress?
    /// Where the front ends (the web app) say they serve, for `status`.
    let frontEndAddresses = NIOLockedValueBox<[Int: String]>([:])
    /// What the node last read of the store as other processes leave it (Node+ExternalWrites).
    var externalWrites = ExternalWrites()
    /// Entries delivered and not handled yet: while many wait, the engine asks for nothing.
    let entriesBacklog = EntriesBacklog()
    /// The parts of the node (Node+Lifecycle), run as one group.
    var serviceGroup: ServiceGroup?
    /// Where `start` runs the group.
    var running: Task<Void, Never>?
    var stopped = false
    var finished = false

    /// Opens the node's data directory (or uses `local`, already open in this process: one
    /// database pool per process) and locks it against a second node.
    public init(options: NodeOptions, local: Profile? = nil) throws {
        self.options = options
        logger = options.logger
        // A data directory that does not exist yet has no identity either: say that, not
        // that its lock file cannot be made.
        if local == nil { try IdentityFile.requireExisting(at: options.directory.identityFile) }
        lock = try NodeLock(directory: options.directory)
        let local = try local ?? Profile.open(options.directory)
        self.local = local
        operations = try NodeOperations(options: options, store: local.store)
        // A relay named with its key in `--peer KEY@HOST:PORT` was chosen by the person too.
        let named = Set(options.staticPeers.compactMap { try? StaticPeer($0).key })
        let chosen = named.union(operations.policy?.configuration.allow ?? [])
        var sync = SyncConfiguration(role: options.role)
        sync.backlog = { [entriesBacklog] in entriesBacklog.bytes }
        if options.role == .person { sync.authorRateLimit = options.authorRateLimit }
        sync.trustsRelay = Self.relayTrust(store: local.store, networkKey: options.networkKey, allow: chosen)
        let admission: any EntryAdmission =
            try operations.policy
            ?? AuthorQuota(limit: options.authorQuotaBytes, store: local.store, logger: options.logger)
        engine = SyncEngine(store: local.store, configuration: sync, admission: admission, logger: options.logger)
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        (inbox, inboxContinuation) = AsyncStream.makeStream(of: NodeInput.self)
        files = Self.fileExchange(store: local.store, options: options, policy: operations.policy)
        files.shares = { [engine] in try engine.sharesFiles(of: $0, with: $1) }
        writer = ChunkWriter(store: local.store) { [continuation = inboxContinuation] in
            continuation.yield(.chunksWritten($0))
        }

        var configuration = SessionConfiguration(
            identity: local.identity, networkKey: options.networkKey, logger: logger)
        configuration.maxSessions = 64
        configuration.admit = { [blockList] in !blockList.contains($0) }
        // Keys the person chose, or in the store, keep a way in when strangers hold every
        // session.
        configuration.isKnown = { [store = local.store] in chosen.contains($0) || (try? store.isKnownPeer($0)) == true }
        configuration.entryRateLimiter = operations.rateLimiter
        // Every session's messages wait in the one inbox this actor works through: each
        // session may fill only its own share of it. Half the default in bytes: an Entries
        // message waits there with its entries decoded beside it (`SessionBridge`), about
        // as large again.
        configuration.inboxLimit = InboxLimit(bytes: 4 << 20)
        // And all of them together no more than eight sessions' shares: 64 sessions of 4 MiB
        // (and their decoded entries) would be half a gigabyte.
        configuration.inboxPool = InboxPool(bytes: 32 << 20)
        sessions = SessionService(
            configuration: configuration, group: group,
            delegate: SessionBridge(continuation: inboxContinuation, backlog: entriesBacklog))
        dialer = Dialer(sessions: sessions, logger: logger)
    }

    public nonisolated var me: NodeID { local.me }

    /// This node's messenger: what the control socket and in-process front ends call.
    public nonisolated var messenger: LocalMessenger { LocalMessenger(local: local, node: self) }

    // MARK: Inputs

    func processInbox() async {
        for await input in inbox {
            // Handled (or dropped): the session may read on once enough is consumed.
            defer {
                if case .message(let session, let message, _) = input {
                    entriesBacklog.handled(message)
                    session.consumed(message)
                }
            }
            // An answer to Want can wait: one the peer is not reading is not written.
            if case .message(let session, .want, _) = input, !session.isWritable { continue }
            if case .beacon = input {} else { wakeHousekeeping() }
            do {
                try handle(input)
            } catch {
                logger.error("node error: \(error)")
            }
        }
    }

    private func handle(_ input: NodeInput) throws {
        switch input {
        case .opened(let session):
            guard admitOpened(session), admitSession(session) else { return }
            engine.peerConnected(session.remote)
            files.peerConnected(session.remote)
            // An accepted connection comes from the dialler's ephemeral port, which is no
            // address to dial: where it accepts sessions is known once its Hello arrives.
            updatePresence(
                session.remote, connected: true, address: session.isInitiator ? session.remoteAddress?.display : nil)
            // Before the Hello: a peer that has it knows discovery was told whose beacons matter.
            attendBeacons()
            session.send(
                .hello(
                    .init(
                        displayName: try local.displayName(), role: options.role,
                        listenPort: UInt16(listenAddress?.port ?? 0))))
        case .message(let session, let message, let decoded):
            guard !blockList.contains(session.remote), !isRefused(session), !isIncompatible(session) else { return }
            if case .typing(let typing) = message { return receiveTyping(typing, from: session.remote) }
            if case .rooms(let rooms) = message {
                guard engine.hasGreeted(session.remote) else {
                    return apply(try engine.peerRooms([], of: session.remote), replyTo: session)
                }
                return try receiveRooms(rooms, from: session)
            }
            if case .bye(let reason) = message {
                noteBye(reason, from: session)
                if reason == .shutdown { peerLeaving(session.remote) }
            }
            if case .hello(let hello) = message {
                try rememberPeer(session.remote, hello: hello, session: session)
                guard admitVersion(hello, of: session) else { return }
            }
            switch message {
            case .fileWant, .fileManifest, .fileChunk, .fileHave:
                applyFiles(try files.handle(message, from: session.remote))
            default:
                apply(try engine.handle(message, from: session.remote, decoded: decoded), replyTo: session)
                if case .hello(let hello) = message {
                    applyFiles(try files.peerReady(session.remote))
                    try greetRooms(hello, session: session)
                }
            }
        case .closed(let session, let error):
            guard !forgetRefused(session) else { return }
            forgetIncompatible(session)
            engine.peerDisconnected(session.remote)
            roomDirectory.peerGone(session.remote)
            for key in typingTable.peerGone(session.remote) { emitTyping(key, active: false) }
            applyFiles(try files.peerDisconnected(session.remote))
            if let error { logger.info("session with \(session.remote.shortHex) closed: \(error)") }
            updatePresence(session.remote, connected: false)
            attendBeacons()
            if redialOnClose.remove(session.remote) != nil { try dialRemembered(session.remote, why: "renamed") }
        case .beacon(let beacon, let from):
            guard !blockList.contains(beacon.node), let host = from.hostForDialing else { return }
            // A beacon's key is free to make and its source address unauthenticated (anyone
            // can replay one from elsewhere): it is only a hint where to dial, within the
            // limits of BeaconDialPolicy. A stranger shows in presence once a session with it
            // opens; a peer's address is recorded once a handshake succeeds.
            let chosen = chosenPeers.contains(beacon.node)
            if chosen || presence.contains(beacon.node) { updatePresence(beacon.node, seen: true) }
            needs.heardBeacon(beacon.node, at: HostPort(host: host, port: Int(beacon.tcpPort)))
            guard sessions.session(with: beacon.node) == nil else { return }
            // Sessions by need (SessionNeeds): past a few strangers, only the people this
            // node shares conversations with, and relays. A relay itself seeks everyone: it
            // carries for whoever is away.
            guard
                options.role == .relay || roomDirectory.seeksSession(forTags: beacon.rooms)
                    || needs.dialsOnBeacon(
                        beacon.node,
                        relay: SessionNeeds.countsAsRelay(
                            role: beacon.role, privateNetwork: options.networkKey != .default),
                        strangerSessions: needs.strangers(among: sessions.sessions.map(\.remote)))
            else { return }
            // A dial tells the peer about us by itself (and answering as well would make it
            // dial back at the same moment: two sessions, one closed); a beacon answers it
            // when there is no dial, or the dial failed.
            let dialing =
                !avoidsDialing(beacon.node, version: beacon.version)
                && dialer.dialFromBeacon(
                    host: host, port: Int(beacon.tcpPort), remote: beacon.node, known: chosen, now: .now,
                    failed: { [weak self] in Task { await self?.answerBeacon(of: beacon.node) } })
            if !dialing { answerBeacon(of: beacon.node) }
        case .chunksWritten(let results):
            for result in results {
                applyFiles(
                    try files.written(result.file, chunks: result.chunks, bytes: result.bytes, result: result.outcome))
            }
        }
    }

    /// Sends what the engine decided and publishes what happened; `shown`: messages of mine
    /// it stored, as the store wrote them (published without reading them back).
    func apply(_ output: SyncOutput, replyTo session: PeerSession? = nil, shown: [ChatMessage] = []) {
        if !output.isEmpty { wakeHousekeeping() }
        if let session, !output.replies.isEmpty { session.send(output.replies) }
        for (peer, messages) in output.pushes {
            sessions.session(with: peer)?.send(messages)
        }
        if let session, let reason = output.misbehavior {
            logger.warning("closing session with \(session.remote.shortHex): \(reason)")
            session.close(reason: .protocolViolation)
        }
        // The indicator goes as the message comes.
        stopTyping(output.appended)
        // A conversation received is held from its create on: a large group among them goes
        // along the tree from now on, and only to peers that read large groups.
        refreshLargeGroups(ifCreating: output.appended)
        hub.publish(output, store: local.store, shown: shown)
        // Another of my person's devices changed a setting (Protocol.md §20.15): a flag, a
        // deletion or a peer's trust, which the store took already; views read them again.
        if output.appended.contains(where: { $0.kind == .setting && $0.author != me }) {
            do { try reloadTrust() } catch { logger.error("could not read the block list: \(error)") }
            hub.emit(.changed(nil))
        }
        recordOperations(output, from: session)
        if FileExchange.concerns(output.appended) {
            do { applyFiles(try files.entriesArrived(output.appended)) } catch {
                logger.error("could not look for files to fetch: \(error)")
            }
        }
    }

    // MARK: Local writes

    /// Entries written here (through this process's store) go out at once; `shown`: those
    /// that are messages, as the store wrote them.
    public func didWrite(_ entries: [Entry], shown: [ChatMessage]) throws {
        // A large group started here is known to the engine before it offers the create.
        refreshLargeGroups(ifCreating: entries)
        for entry in entries where entry.author == me {
            if case .message = entry.body { typingPacer.messageWritten(in: entry.conversationID) }
        }
        apply(try engine.didWrite(entries), shown: shown)
        reachParticipants(of: Set(entries.map(\.conversationID)))
    }

    public func didWrite(_ entries: [Entry]) throws {
        try didWrite(entries, shown: [])
    }

    /// Another process wrote to this conversation through the store: offer it now rather
    /// than when the change signal is next read.
    public func changed(_ conversation: ConversationID) throws {
        // It may have been started just now (that is when a front end says so): if it is a
        // large group, the engine must know before it offers it to anyone.
        try refreshLargeGroups()
        apply(try engine.offer([conversation]))
        hub.emit(.changed(conversation))
    }

    /// Tells every watcher (a front end changed something only it knows about).
    public nonisolated func emit(_ event: NodeEvent) {
        hub.emit(event)
    }

    /// Events from now on, until the stream is dropped or the node stops.
    public nonisolated func events() -> AsyncStream<NodeEvent> {
        hub.subscribe()
    }

    /// Re-announces clocks to every peer and redials known addresses now, without waiting
    /// for a beacon or a dial loop's backoff.
    public func resync() throws {
        apply(try engine.resyncAll())
        discovery?.announceNow()
        for peer in try local.store.redialCandidates() where peer.trust != .blocked {
            try dialRemembered(peer.id, why: "resync")
        }
    }

    /// Dials a peer at the addresses remembered for it now, unless a session with it is open
    /// or it is not to be dialled (refused by policy, or it refused us lately).
    func dialRemembered(_ peer: NodeID, why: String) throws {
        guard !avoidsDialing(peer), sessions.session(with: peer) == nil else { return }
        let addresses = try local.store.addresses(of: peer)
        logger.debug("\(why): dialling \(peer.shortHex) at \(addresses.joined(separator: ", "))")
        dialer.dial(addresses.compactMap { try? HostPort($0, defaultPort: HostPort.defaultSessionPort) }, remote: peer)
    }

    // MARK: Peers

    private func rememberPeer(_ id: NodeID, hello: SessionMessage.Hello, session: PeerSession) throws {
        let address = Self.listenAddress(host: session.remoteAddress?.hostForDialing, port: hello.listenPort)
        let before = try local.store.peer(id)?.name
        if let holder = try local.store.notePeerSeen(id, suggestedName: hello.displayName, address: address) {
            warnNameClaim(id, holder: holder)
        }
        let name = try local.store.peer(id)?.name
        if let before, let name, name != before {
            logger.info(
                "\(TextSanitizer.quoted(before)) now calls themselves \(TextSanitizer.quoted(name))",
                metadata: ["event": "peer_renamed", "peer": "\(id.shortHex)"])
            hub.emit(.changed(nil))
        }
        presence.helloReceived(id, hello: hello, address: address, name: name)
        // Online since the session opened, but what its version costs is known only now.
        if let entry = presence.entries[id], entry.protocolNotice != nil { hub.emit(.peerOnline(entry)) }
    }

    /// Our beacon at once for a peer that may not know us (Protocol.md §11.3).
    private func answerBeacon(of peer: NodeID) {
        guard sessions.session(with: peer) == nil, beaconAnswers.shouldAnswer(peer, now: .now) else { return }
        discovery?.announceNow()
    }

    private func peerLeaving(_ id: NodeID) {
        if let event = presence.leaving(id, known: (try? local.store.peer(id)) ?? nil, now: Date()) { hub.emit(event) }
    }

    private func updatePresence(_ id: NodeID, connected: Bool? = nil, address: String? = nil, seen: Bool = false) {
        guard id != me else { return }
        let known = (try? local.store.peer(id)) ?? nil
        if let event = presence.update(
            id, known: known, connected: connected, address: address, seen: seen, now: Date())
        {
            hub.emit(event)
        }
    }

    public func peers() -> [PeerPresence] {
        PeerPresence.foldingDevices(
            presence.snapshot(known: (try? local.store.peers()) ?? []),
            owners: (try? local.store.deviceOwners()) ?? [:],
            personNames: (try? local.store.personDeviceNames()) ?? [:]
        ).markingOwnDevices((try? local.store.myDevices()) ?? [])
    }

    public func status() throws -> NodeStatus {
        var status = NodeStatus(
            id: me, name: try local.displayName(), role: options.role,
            listen: listenAddress?.display ?? "", discovery: options.discovery,
            sessions: sessions.sessions.map { session in
                NodeStatus.Session(
                    peer: session.remote,
                    name: presence.entries[session.remote]?.name ?? session.remote.shortHex,
                    address: session.remoteAddress?.display ?? "", initiator: session.isInitiator)
            },
            outbox: try local.store.outboxCount(),
            outstanding: (try? engine.outstandingEntries()) ?? 0, traffic: operations.traffic)
        let notices = peers().compactMap(\.protocolNotice)
        status.versionNotices = notices.isEmpty ? nil : notices
        status.networkTag = options.networkKey.tagHex
        status.web = frontEndAddresses.withLockedValue { $0.sorted { $0.key < $1.key }.first?.value }
        let statistics = sessions.statistics
        status.messages = .init(sent: statistics.messagesSent, received: statistics.messagesReceived)
        var activity = NodeStatus.Activity()
        if let counts = discovery?.counters.snapshot {
            activity.beaconsReceived = counts.datagrams
            activity.beaconsChecked = counts.verified
            activity.beaconsRepeated = counts.repeats
            activity.beaconsAccepted = counts.accepted
            activity.beaconsSent = counts.sent
        }
        activity.connectionsAccepted = statistics.accepted
        activity.connectionsRefused = statistics.refused
        activity.handshakeFailures = statistics.handshakeFailures
        activity.sessionsOpened = statistics.opened
        status.activity = activity
        let commits = local.store.commitStatistics
        status.commits = .init(
            transactions: commits.transactions, writes: commits.writes, largestBatch: commits.largestBatch,
            synced: commits.synced, pendingSync: commits.pendingSync)
        if let discovery {
            status.beacons.port = options.discoveryPort
            status.beacons.listening = discovery.localAddresses.map(\.display)
            if options.beaconTargets.isEmpty {
                status.beacons.targets = discovery.plan.targets.map(\.description)
                status.beacons.skipped = discovery.plan.skipped.map(\.description)
            } else {
                status.beacons.targets = options.beaconTargets
            }
        }
        return status
    }

    /// Who is trusted as a relay when it says it is one (Protocol.md §14.1): on a private
    /// network anyone holding its key, since the key was shared by hand; on the default
    /// network, whose key anyone can compute, only keys this node's person added or
    /// verified, named in `--peer KEY@HOST:PORT`, or on a relay's `--allow` list.
    static func relayTrust(
        store: ConfabStore, networkKey: NetworkKey, allow: Set<NodeID>
    ) -> @Sendable (NodeID) -> Bool {
        let privateNetwork = networkKey != .default
        return { peer in
            if privateNetwork || allow.contains(peer) { return true }
            if (try? store.peer(peer))??.trust == .verified { return true }
            return (try? store.peersAddedByHand().contains(peer)) ?? false
        }
    }

    // MARK: Addresses

    /// Chosen peers (at most 16), the address's last known owner first, then my person's
    /// other machines, then the other chosen peers.
    static func candidateKeys(for target: StaticPeer, store: ConfabStore) throws -> [NodeID] {
        // My person's other machines too: a machine just linked has met no one, and the
        // address it was given is most often its person's other machine (Protocol.md §20.10).
        let mine = try store.myDevices().subtracting([store.me]).sorted()
        let peers = Array(try store.chosenPeers().prefix(16)).filter { !mine.contains($0.id) }
        let address = target.address.description
        return peers.filter { $0.address == address }.map(\.id) + mine
            + peers.filter { $0.address != address }.map(\.id)
    }

    static func socketAddress(_ text: String, defaultPort: Int) throws -> SocketAddress {
        let address = try StaticPeer.address(text, defaultPort: defaultPort)
        do {
            return try SocketAddress(ipAddress: address.host, port: address.port)
        } catch {
            throw NodeError.badAddress(text, "not an IP address")
        }
    }

    /// Where a peer accepts sessions: the IP its session or beacon came from, with the port
    /// it names (Hello's `listen_port`, a beacon's `tcp_port`), never the TCP source port.
    /// Nil for port 0 (a Hello saying the peer accepts no sessions): nothing to remember.
    static func listenAddress(host: String?, port: UInt16) -> String? {
        guard let host, port != 0 else { return nil }
        return HostPort(host: host, port: Int(port)).description
    }
}
