import ConfabClient
import ConfabNet
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// How a node starts and stops: each part is bound and configured when made, then all run as
/// services of one `ServiceGroup`. The group starts them together and shuts them down in
/// reverse order of the list: the control socket first (nothing asked during a shutdown is
/// accepted and then lost), then the timed duties, metrics, discovery, the sessions with
/// their goodbyes, and last the router, which stores what peers sent until then.
extension Node {
    /// Runs the node until one of `gracefulShutdownSignals` arrives (`confab up`, `confab
    /// relay`: SIGTERM and SIGINT), then stops it cleanly.
    public func runService(gracefulShutdownSignals: [UnixSignal]) async throws {
        let (group, _) = try await makeServiceGroup(gracefulShutdownSignals: gracefulShutdownSignals)
        await run(group)
    }

    /// Binds every part and runs them in the background (a chat that runs its own node, the
    /// tests); returns the address sessions are accepted on. `stop` ends it.
    @discardableResult
    public func start() async throws -> SocketAddress {
        let (group, address) = try await makeServiceGroup(gracefulShutdownSignals: [])
        running = Task { await self.run(group) }
        return address
    }

    /// Shuts the group down and waits until every part has ended; the store is consistent at
    /// every commit, so nothing more needs flushing.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        if let serviceGroup {
            await serviceGroup.triggerGracefulShutdown()
            await running?.value
        } else {
            await finish()
        }
    }

    private func makeServiceGroup(
        gracefulShutdownSignals: [UnixSignal]
    ) async throws -> (ServiceGroup, SocketAddress) {
        do {
            let (services, address) = try await bindServices()
            let group = ServiceGroup(
                configuration: .init(
                    services: services, gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
            serviceGroup = group
            return (group, address)
        } catch {
            // What was bound before the failure is closed, and the data directory let go.
            await finish()
            throw error
        }
    }

    private func run(_ group: ServiceGroup) async {
        do { try await group.run() } catch { logger.error("node stopped on an error: \(error)") }
        await finish()
    }

    /// Listening, discovery, metrics and the control socket bound, static peers dialled:
    /// the services that run them, in the group's order.
    private func bindServices() async throws -> ([any Service], SocketAddress) {
        // A node killed after a deletion left its words in the store's log: gone before the
        // node serves anything (Protocol.md §8.0).
        if !local.store.scrub() { logger.warning("could not scrub the store's log: another process holds it open") }
        try reloadTrust()
        _ = try engine.holdRooms(Set(local.store.joinedRooms().values))
        try refreshLargeGroups()
        let address = try await listen()
        listenAddress = address
        let name = try local.displayName()
        logger.info(
            "node \(me.shortHex) (\(name)) listening on \(address.display)",
            metadata: ["role": "\(options.role.rawValue)"])
        var services: [any Service] = [InboxService(node: self), SessionsService(sessions: sessions, dialer: dialer)]
        if options.discovery {
            services.append(
                BeaconService(discovery: try await startDiscovery(tcpPort: address.port ?? options.listenPort)))
            announceRooms(try local.store.joinedRooms())
        }
        if let metrics = try await startOperations() {
            services.append(
                MetricsService(
                    server: metrics, logger: logger,
                    address: metrics.address?.display ?? options.metricsAddress ?? ""))
        }
        let control = try await ControlServer.bind(local.directory, group: group)
        self.control = control
        try startWatchingExternalWrites()
        if let removal = try local.store.myDeviceRemoval() {
            // It still syncs what others wrote (sealed to keys it does not hold); the store
            // refuses whatever it would write as its person.
            logger.warning("\(removal.message)", metadata: ["event": "device_removed"])
        }
        try local.store.pruneStrangers()
        for carried in try local.store.carryOverStrandedConversations() {
            logger.notice(
                """
                conversation \(carried.from.shortHex), started by Confab 0.1.0 and never received by anyone, \
                is now \(carried.to.shortHex) (\(carried.messages) messages carried over): nodes of this version \
                take no protocol 1 conversation
                """,
                metadata: ["event": "conversation_carried_over"])
        }
        local.store.content.removeTemporaryFiles()
        try local.store.removeOrphanedFiles()
        try local.store.sweepContent()
        applyFiles(try files.refresh())
        refreshChosenPeers()
        services.append(HousekeepingService(node: self))
        for (index, frontEnd) in options.frontEnds.enumerated() {
            services.append(
                frontEnd.service(messenger: messenger, directory: local.directory, logger: logger) {
                    [frontEndAddresses] address in
                    frontEndAddresses.withLockedValue { $0[index] = address }
                })
        }
        services.append(ControlService(server: control, messenger: messenger, logger: logger))
        try startDialing()
        return (services, address)
    }

    /// Ends the router's input: once what is queued is handled, it returns.
    nonisolated func finishInbox() {
        writer.stop()
        inboxContinuation.finish()
    }

    /// Closes whatever is still open (everything, when the group never ran or a part
    /// failed) and lets the data directory go. Each close is a no-op when its service
    /// already ran its own.
    private func finish() async {
        guard !finished else { return }
        finished = true
        dialer.cancelAll()
        await control?.close()
        await stopOperations()
        await discovery?.stop()
        await sessions.shutdown()
        finishInbox()
        hub.finish()
        try? await group.shutdownGracefully()
        // Entries received since the last synced commit, on disk before the store is let go.
        do { try local.store.syncReceived() } catch { logger.error("could not sync the store: \(error)") }
        lock.release()
        logger.info("node stopped")
    }

    /// Both families on "::"; IPv4 alone where the machine has no IPv6 (the socket cannot
    /// even be made).
    private func listen() async throws -> SocketAddress {
        do {
            return try await sessions.listen(host: options.listenHost, port: options.listenPort)
        } catch let error as IOError
            where options.listenHost == "::" && [EAFNOSUPPORT, EADDRNOTAVAIL].contains(error.errnoCode)
        {
            logger.info("no IPv6 on this machine: accepting sessions on IPv4 only")
            return try await sessions.listen(host: "0.0.0.0", port: options.listenPort)
        }
    }

    private func startDiscovery(tcpPort: Int) async throws -> DiscoveryService {
        let targets: DiscoveryConfiguration.Targets =
            options.beaconTargets.isEmpty
            ? .interfaces
            : .fixed(try options.beaconTargets.map { try Self.socketAddress($0, defaultPort: options.discoveryPort) })
        var configuration = DiscoveryConfiguration(
            identity: local.identity, networkKey: options.networkKey, tcpPort: UInt16(tcpPort), role: options.role,
            targets: targets, logger: logger)
        configuration.port = options.discoveryPort
        let discovery = DiscoveryService(
            configuration: configuration, group: group,
            onPlanChange: { [logger] plan in if plan.targets.isEmpty { Self.warnNoTargets(plan, logger: logger) } },
            onBeacon: { [continuation = inboxContinuation] beacon, from in continuation.yield(.beacon(beacon, from)) })
        try await discovery.start()
        self.discovery = discovery
        attendBeacons()
        switch targets {
        case .fixed(let addresses):
            logger.info("discovery on UDP \(options.discoveryPort), beacons to \(addresses.map(\.display))")
        case .interfaces:
            let plan = discovery.plan
            if plan.targets.isEmpty {
                Self.warnNoTargets(plan, logger: logger)
            } else {
                logger.info(
                    "discovery on UDP \(options.discoveryPort), beacons to \(plan.targets.map(\.description))",
                    metadata: plan.skipped.isEmpty ? [:] : ["skipped": "\(plan.skipped.map(\.description))"])
            }
        }
        return discovery
    }

    private static func warnNoTargets(_ plan: BeaconPlan, logger: Logger) {
        let skipped = plan.skipped.isEmpty ? "" : " (\(plan.skipped.map(\.description).joined(separator: "; ")))"
        logger.warning(
            "no interface to send beacons on\(skipped): peers will not find this node until one comes up; use --beacon ADDR or --peer HOST:PORT, and run \"confab doctor\""
        )
    }

    /// Static peers, and peers met before at their last known address (so a node finds its
    /// peers again after a restart even where broadcasts do not reach) — only those the
    /// person chose or shares a conversation with: a stranger's Hello must not turn into a
    /// dial loop after every restart.
    private func startDialing() throws {
        let statics = try options.staticPeers.map(StaticPeer.init)
        let staticKeys = Set(statics.compactMap(\.key))
        let remembered = try local.store.redialCandidates().flatMap { peer -> [StaticPeer] in
            guard !staticKeys.contains(peer.id) else { return [] }
            return ((try? local.store.addresses(of: peer.id)) ?? []).compactMap {
                try? StaticPeer("\(peer.id.hex)@\($0)")
            }
        }
        for target in statics + remembered {
            dialer.keepDialing(
                target, candidates: { [store = local.store] in try Self.candidateKeys(for: target, store: store) },
                refused: { [blockList, incompatiblePeers] in
                    blockList.contains($0) || incompatiblePeers.avoids($0)
                })
        }
    }
}
