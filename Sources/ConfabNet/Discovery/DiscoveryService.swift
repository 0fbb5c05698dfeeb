import ConfabModel
import ConfabWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Announces this node with signed UDP beacons and reports the beacons of other nodes of
/// the same network (Protocol.md §11), over IPv4 broadcast and IPv6 link-local multicast.
///
/// Per family, a socket bound to the discovery port that only receives, and one on a port
/// of its own that only sends: NIO closes a datagram socket on most send errors (EINVAL,
/// ENOBUFS, ENETUNREACH while a link goes down), and a target that cannot be reached must
/// not stop this node from hearing others. A socket that closes while the service runs is
/// opened again. The receivers share one replay guard, so a beacon heard on both is
/// reported once. With `.interfaces` targets the
/// interfaces are read again every `interfaceCheckInterval`: a new network gets beacons
/// (and the fast pace) within seconds, a vanished one stops getting them.
///
/// `onBeacon` is called on the service's event loop for every new beacon: the sender's
/// address is where it came from, and `beacon.tcpPort` says where to dial. Deciding that
/// a peer went offline is up to the caller.
public final class DiscoveryService: Sendable {
    private enum State {
        case idle
        case starting
        case running(Running)
        case stopped
    }

    /// Which socket: a family's receiver or its announcer.
    private struct Slot: Hashable, CustomStringConvertible {
        var family: NIOBSDSocket.ProtocolFamily
        var sends: Bool
        var description: String { "\(family == .inet6 ? "IPv6" : "IPv4") \(sends ? "sending" : "receiving")" }
    }

    private struct Running {
        var sockets: [Slot: any Channel] = [:]
        var watcher: RepeatedTask?
        var receivers: [any Channel] {
            [.inet, .inet6].compactMap { sockets[Slot(family: $0, sends: false)] }
        }
        var channels: [any Channel] { Array(sockets.values) }
    }

    private let configuration: DiscoveryConfiguration
    private let group: any EventLoopGroup
    private let onBeacon: @Sendable (Beacon, SocketAddress) -> Void
    private let onPlanChange: @Sendable (BeaconPlan) -> Void
    private let state = NIOLockedValueBox(State.idle)
    /// Shared by every receiving socket, reopened ones included.
    private let replays = BeaconReplayGuard()
    /// Sockets being opened again; `stop` ends them and waits, so that nothing binds on an
    /// event loop group its owner shuts down next.
    private let reopening = NIOLockedValueBox([Slot: Task<Void, Never>]())
    /// The plan in use and the interfaces whose IPv6 group the socket has joined.
    private let current = NIOLockedValueBox(
        (plan: BeaconPlan(), interfaces: [NetworkInterface](), joined: Set<UInt32>()))

    public init(
        configuration: DiscoveryConfiguration, group: any EventLoopGroup,
        onPlanChange: @escaping @Sendable (BeaconPlan) -> Void = { _ in },
        onBeacon: @escaping @Sendable (Beacon, SocketAddress) -> Void
    ) {
        self.configuration = configuration
        self.group = group
        self.onPlanChange = onPlanChange
        self.onBeacon = onBeacon
    }

    /// Binds the sockets and sends the first beacons. A receiving socket allows other
    /// sockets on the same port (SO_REUSEADDR and SO_REUSEPORT), so several nodes on one
    /// machine can all hear broadcasts; the IPv4 sending one may send to broadcast
    /// addresses (SO_BROADCAST). IPv6 is used where the machine has it; a machine without
    /// it beacons on IPv4 only.
    public func start() async throws {
        try state.withLockedValue { state in
            switch state {
            case .idle: state = .starting
            case .starting, .running: throw DiscoveryError.alreadyStarted
            case .stopped: throw DiscoveryError.stopped
            }
        }
        if case .interfaces = configuration.targets {
            let interfaces = NetworkInterface.current()
            let plan = BeaconPlan.make(interfaces: interfaces, port: configuration.port)
            current.withLockedValue { $0 = (plan, interfaces, []) }
        }
        var running = Running()
        do {
            for family in configuration.ipv6 ? [NIOBSDSocket.ProtocolFamily.inet, .inet6] : [.inet] {
                do {
                    let receiver = Slot(family: family, sends: false)
                    running.sockets[receiver] = try await bind(receiver)
                    let sender = Slot(family: family, sends: true)
                    running.sockets[sender] = try await bind(sender)
                } catch  where family == .inet6 {
                    configuration.logger.info("no IPv6 discovery: \(error)")
                    for sends in [false, true] {
                        try? await running.sockets[Slot(family: family, sends: sends)]?.close()
                    }
                    running.sockets[Slot(family: family, sends: false)] = nil
                    running.sockets[Slot(family: family, sends: true)] = nil
                }
            }
        } catch {
            for channel in running.channels { try? await channel.close() }
            state.withLockedValue { state in
                if case .starting = state { state = .idle }
            }
            throw error
        }
        if case .interfaces = configuration.targets, let watching = running.receivers.first {
            if let v6 = running.sockets[Slot(family: .inet6, sends: false)] {
                await join(current.withLockedValue { $0.plan }, on: v6)
            }
            let interval = configuration.interfaceCheckInterval
            running.watcher = watching.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                self.checkInterfaces()
            }
        }
        let started = running
        let stoppedMeanwhile = state.withLockedValue { state in
            guard case .starting = state else { return true }
            state = .running(started)
            return false
        }
        if stoppedMeanwhile {
            started.watcher?.cancel()
            for channel in started.channels { try? await channel.close() }
            throw DiscoveryError.stopped
        }
        for (slot, channel) in started.sockets { supervise(channel, slot) }
        configuration.logger.info(
            "discovery started",
            metadata: [
                "addresses": "\(started.receivers.compactMap(\.localAddress).map { "\($0)" }.joined(separator: ", "))",
                "targets": "\(targets.map { "\($0)" }.joined(separator: ", "))",
            ])
    }

    /// The addresses the receiving sockets are bound to, once started.
    public var localAddresses: [SocketAddress] {
        state.withLockedValue { state in
            if case .running(let running) = state { return running.receivers.compactMap(\.localAddress) }
            return []
        }
    }

    /// The IPv4 socket's address, once started.
    public var localAddress: SocketAddress? { localAddresses.first }

    /// Where beacons go now, and which up interfaces get none and why (empty with fixed
    /// targets).
    public var plan: BeaconPlan { current.withLockedValue { $0.plan } }

    /// Closes the sockets: no more beacons are sent or reported. Final.
    public func stop() async {
        let running: Running? = state.withLockedValue { state in
            defer { state = .stopped }
            if case .running(let running) = state { return running }
            return nil
        }
        running?.watcher?.cancel()
        let tasks = reopening.withLockedValue { tasks in
            defer { tasks = [:] }
            return Array(tasks.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        // A socket reopened before it saw the stop closes itself once it sees it.
        for channel in running?.channels ?? [] { try? await channel.close() }
    }

    /// Sends a beacon at once, outside the schedule (for example on a resync).
    public func announceNow() {
        for channel in announcers {
            channel.eventLoop.execute {
                try? channel.pipeline.syncOperations.handler(type: BeaconAnnouncer.self).announceNow()
            }
        }
    }

    private var announcers: [any Channel] {
        state.withLockedValue { state in
            guard case .running(let running) = state else { return [] }
            return running.sockets.filter(\.key.sends).map(\.value)
        }
    }

    /// The targets of the moment: the fixed ones, or the current plan's.
    private var targets: [SocketAddress] {
        switch configuration.targets {
        case .fixed(let fixed): fixed
        case .interfaces: plan.addresses
        }
    }

    // MARK: Sockets

    /// A socket that closes while the service runs is opened again, after 1 s and then up
    /// to 30 s between attempts, with the targets of the moment.
    private func supervise(_ channel: any Channel, _ slot: Slot) {
        channel.closeFuture.whenComplete { _ in
            let stillOurs = self.state.withLockedValue { state -> Bool in
                guard case .running(let running) = state else { return false }
                return running.sockets[slot] === channel
            }
            guard stillOurs else { return }
            self.configuration.logger.warning("discovery socket (\(slot)) closed after an error; opening it again")
            self.reopening.withLockedValue { tasks in
                tasks[slot] = Task {
                    await self.reopen(slot, replacing: channel)
                    _ = self.reopening.withLockedValue { $0.removeValue(forKey: slot) }
                }
            }
        }
    }

    private func reopen(_ slot: Slot, replacing old: any Channel) async {
        var wait = Duration.seconds(1)
        while true {
            do { try await Task.sleep(for: wait) } catch { return }
            guard isRunning, !Task.isCancelled else { return }
            do {
                let channel = try await bind(slot)
                let installed = state.withLockedValue { state -> Bool in
                    guard case .running(var running) = state, running.sockets[slot] === old else { return false }
                    running.sockets[slot] = channel
                    state = .running(running)
                    return true
                }
                guard installed else {
                    try? await channel.close()
                    return
                }
                if slot == Slot(family: .inet6, sends: false), case .interfaces = configuration.targets {
                    current.withLockedValue { $0.joined = [] }
                    await join(plan, on: channel)
                }
                supervise(channel, slot)
                configuration.logger.info("discovery socket (\(slot)) open again")
                return
            } catch {
                configuration.logger.warning("could not open the discovery socket (\(slot)) again: \(error)")
                wait = min(wait * 2, .seconds(30))
            }
        }
    }

    private var isRunning: Bool {
        state.withLockedValue { state in
            if case .running = state { return true }
            return false
        }
    }

    /// A receiving socket on the discovery port, or a sending one on a port of its own
    /// with an announcer for that family's targets.
    private func bind(_ slot: Slot) async throws -> any Channel {
        let configuration = self.configuration
        let onBeacon = self.onBeacon
        let replays = self.replays
        let v6 = slot.family == .inet6
        let targets = targets.filter { $0.protocol == slot.family }
        var bootstrap = DatagramBootstrap(group: group)
        if !slot.sends {
            bootstrap = bootstrap.channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
        }
        if v6 {
            // Its own socket for IPv6 only, beside the IPv4 one on the same port.
            bootstrap = bootstrap.channelOption(
                ChannelOptions.socket(SocketOptionLevel(IPPROTO_IPV6), SocketOptionName(IPV6_V6ONLY)), value: 1)
        } else if slot.sends {
            bootstrap = bootstrap.channelOption(.socketOption(.so_broadcast), value: 1)
        }
        // An address, not a name: resolving "0.0.0.0" on a machine with no IPv4 address can
        // give an IPv6 socket.
        let host = v6 ? "::" : (slot.sends ? "0.0.0.0" : configuration.bindHost)
        let address = try SocketAddress(ipAddress: host, port: slot.sends ? 0 : configuration.port)
        return try await bootstrap.channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                if slot.sends {
                    try channel.pipeline.syncOperations.addHandler(
                        BeaconAnnouncer(
                            identity: configuration.identity, networkKey: configuration.networkKey,
                            tcpPort: configuration.tcpPort, role: configuration.role, targets: targets,
                            schedule: configuration.schedule, logger: configuration.logger))
                } else {
                    try channel.pipeline.syncOperations.addHandler(
                        BeaconReceiver(
                            ownNode: NodeID(configuration.identity.publicKey), networkKey: configuration.networkKey,
                            logger: configuration.logger, replays: replays, onBeacon: onBeacon))
                }
            }
        }
        .bind(to: address).get()
    }

    /// Reads the interfaces again; on a change, beacons go to the new plan at once.
    private func checkInterfaces() {
        let interfaces = NetworkInterface.current()
        guard
            let plan = current.withLockedValue({ current -> BeaconPlan? in
                guard interfaces != current.interfaces else { return nil }
                current.interfaces = interfaces
                let plan = BeaconPlan.make(interfaces: interfaces, port: configuration.port)
                guard plan != current.plan else { return nil }
                current.plan = plan
                return plan
            })
        else { return }
        configuration.logger.info(
            "network changed: beacons now to \(plan.targets.isEmpty ? "nowhere" : plan.targets.map(\.description).joined(separator: ", "))",
            metadata: plan.skipped.isEmpty
                ? [:] : ["skipped": "\(plan.skipped.map(\.description).joined(separator: "; "))"])
        let sockets: [Slot: any Channel] = state.withLockedValue { state in
            if case .running(let running) = state { return running.sockets }
            return [:]
        }
        if let v4 = sockets[Slot(family: .inet, sends: true)] {
            update(v4, targets: plan.addresses.filter { $0.protocol == .inet })
        }
        if let receiver = sockets[Slot(family: .inet6, sends: false)] {
            let sender = sockets[Slot(family: .inet6, sends: true)]
            Task { [self] in
                await join(plan, on: receiver)
                if let sender { update(sender, targets: plan.addresses.filter { $0.protocol == .inet6 }) }
            }
        }
        onPlanChange(plan)
    }

    private func update(_ channel: any Channel, targets: [SocketAddress]) {
        channel.eventLoop.execute {
            try? channel.pipeline.syncOperations.handler(type: BeaconAnnouncer.self).update(targets: targets)
        }
    }

    /// Joins the IPv6 group on every interface of the plan not joined yet, so beacons sent
    /// to it there are received; interfaces that left the plan are forgotten (the kernel
    /// drops a vanished interface's memberships itself).
    private func join(_ plan: BeaconPlan, on channel: any Channel) async {
        guard let multicast = channel as? any MulticastChannel else { return }
        let wanted = Set(plan.targets.filter { $0.kind == .multicast }.map(\.interfaceIndex))
        let joined = current.withLockedValue { $0.joined }
        let devices = (try? System.enumerateDevices()) ?? []
        var nowJoined = joined.intersection(wanted)
        for index in wanted.subtracting(joined) {
            guard let device = devices.first(where: { $0.interfaceIndex == Int(index) }),
                let group = try? SocketAddress(ipAddress: BeaconPlan.ipv6Group, port: configuration.port)
            else { continue }
            do {
                try await multicast.joinGroup(group, device: device).get()
                nowJoined.insert(index)
            } catch {
                configuration.logger.info(
                    "could not join the IPv6 beacon group on \(device.name): \(error)")
            }
        }
        for index in joined.subtracting(wanted) {
            guard let device = devices.first(where: { $0.interfaceIndex == Int(index) }),
                let group = try? SocketAddress(ipAddress: BeaconPlan.ipv6Group, port: configuration.port)
            else { continue }
            try? await multicast.leaveGroup(group, device: device).get()
        }
        current.withLockedValue { $0.joined = nowJoined }
    }
}
