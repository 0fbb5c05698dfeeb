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
    enum State {
        case idle
        case starting
        case running(Running)
        case stopped
    }

    /// Which socket: a family's receiver or its announcer.
    struct Slot: Hashable, CustomStringConvertible {
        var family: NIOBSDSocket.ProtocolFamily
        var sends: Bool
        var description: String { "\(family == .inet6 ? "IPv6" : "IPv4") \(sends ? "sending" : "receiving")" }
    }

    struct Running {
        var sockets: [Slot: any Channel] = [:]
        var watcher: RepeatedTask?
        var receivers: [any Channel] {
            [.inet, .inet6].compactMap { sockets[Slot(family: $0, sends: false)] }
        }
        var channels: [any Channel] { Array(sockets.values) }
    }

    let configuration: DiscoveryConfiguration
    let group: any EventLoopGroup
    let onBeacon: @Sendable (Beacon, SocketAddress) -> Void
    let onPlanChange: @Sendable (BeaconPlan) -> Void
    let state = NIOLockedValueBox(State.idle)
    /// Shared by every receiving socket, reopened ones included.
    let replays = BeaconReplayGuard()
    /// What discovery did since it started.
    public let counters = DiscoveryCounters()
    /// Tags of the rooms this node joined, which its beacons carry (Protocol.md §18.7).
    let roomTags = NIOLockedValueBox<[RoomTag]>([])
    /// Whose repeated beacons the node still wants (`BeaconAttention`).
    let attention = NIOLockedValueBox(BeaconAttention.everything)
    /// Sockets being opened again; `stop` ends them and waits, so that nothing binds on an
    /// event loop group its owner shuts down next.
    let reopening = NIOLockedValueBox([Slot: Task<Void, Never>]())
    /// The plan in use and the interfaces whose IPv6 group the socket has joined.
    let current = NIOLockedValueBox(
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

    /// The rooms this node joined changed: its beacons say so from now on, the next at once,
    /// so that members of a room just joined find it (Protocol.md §18.7).
    public func announce(rooms: [RoomTag]) {
        let changed = roomTags.withLockedValue { tags in
            defer { tags = rooms }
            return tags != rooms
        }
        if changed { announceNow() }
    }

    /// The node says whose repeated beacons it still acts on; the others are dropped on
    /// arrival, unchecked (Protocol.md §11.4).
    public func attend(_ attention: BeaconAttention) {
        self.attention.withLockedValue { $0 = attention }
    }

    /// Sends a beacon at once, outside the schedule (for example on a resync).
    public func announceNow() {
        for channel in announcers {
            channel.eventLoop.execute {
                try? channel.pipeline.syncOperations.handler(type: BeaconAnnouncer.self).announceNow()
            }
        }
    }

    var announcers: [any Channel] {
        state.withLockedValue { state in
            guard case .running(let running) = state else { return [] }
            return running.sockets.filter(\.key.sends).map(\.value)
        }
    }

    /// The targets of the moment: the fixed ones, or the current plan's.
    var targets: [SocketAddress] {
        switch configuration.targets {
        case .fixed(let fixed): fixed
        case .interfaces: plan.addresses
        }
    }
}
