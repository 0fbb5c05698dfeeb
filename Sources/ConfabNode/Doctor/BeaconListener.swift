import ConfabClient
import ConfabNet
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

/// The doctor's ear on the discovery port: binds it as `DiscoveryService` does (IPv4
/// `0.0.0.0` with SO_BROADCAST, IPv6 `[::]` V6ONLY and in the link-local group on every
/// multicast target's interface, both SO_REUSEADDR and SO_REUSEPORT, so that it shares the
/// port with a running node), sends one beacon to each target at once — what makes peers
/// answer, and what tells whether our own beacon comes back — then keeps every datagram that
/// arrives during the window. Whether each socket could be bound is the UDP port check.
struct BeaconListener {
    /// Where one beacon goes.
    struct Target: Sendable {
        var address: SocketAddress
        /// As shown: `10.0.0.255:7460`, `[ff12::7460%eth0]:7460`.
        var display: String
        var interface: String?
        var interfaceIndex: UInt32?
        /// `broadcast`, `multicast` or `fixed`.
        var kind: String
    }

    struct Datagram: Sendable {
        var bytes: [UInt8]
        var from: SocketAddress
    }

    struct Outcome: Sendable {
        var ports: [DoctorFacts.Port]
        var datagrams: [Datagram]
        /// Per target (same order): nil once sent, else why not.
        var sendErrors: [String?]
    }

    /// A bound port's datagrams past this many are dropped: a flood must not grow the
    /// doctor without bound.
    static let maxDatagrams = 10_000

    let port: Int
    let group: any EventLoopGroup

    /// Binds, sends `beacons[i]` to `targets[i]`, listens for `seconds`, and closes.
    func run(targets: [Target], beacons: [[UInt8]], seconds: Double) async -> Outcome {
        let received = NIOLockedValueBox([Datagram]())
        var ports: [DoctorFacts.Port] = []
        var channels: [SocketAddress.Family: any Channel] = [:]
        for (family, host) in [(SocketAddress.Family.inet, "0.0.0.0"), (.inet6, "::")] {
            let shown = family == .inet ? "0.0.0.0:\(port)" : "[::]:\(port)"
            do {
                channels[family] = try await bind(host: host, received: received)
                ports.append(DoctorFacts.Port(proto: "udp", address: shown, port: port, state: .free))
            } catch {
                let (state, reason) = PortProbe.classify(error)
                ports.append(DoctorFacts.Port(proto: "udp", address: shown, port: port, state: state, error: reason))
            }
        }
        if let v6 = channels[.inet6] { await join(targets, on: v6) }
        var sendErrors: [String?] = []
        for (target, beacon) in zip(targets, beacons) {
            guard let channel = channels[target.address.family] else {
                sendErrors.append("no \(target.address.family == .inet ? "IPv4" : "IPv6") socket on port \(port)")
                continue
            }
            do {
                try await channel.writeAndFlush(
                    AddressedEnvelope(remoteAddress: target.address, data: channel.allocator.buffer(bytes: beacon))
                ).get()
                sendErrors.append(nil)
            } catch {
                sendErrors.append(ConnectFailure.describe(error))
            }
        }
        if !channels.isEmpty { try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
        for channel in channels.values { try? await channel.close() }
        return Outcome(ports: ports, datagrams: received.withLockedValue { $0 }, sendErrors: sendErrors)
    }

    private func bind(host: String, received: NIOLockedValueBox<[Datagram]>) async throws -> any Channel {
        var bootstrap = DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
        if host.contains(":") {
            bootstrap = bootstrap.channelOption(
                ChannelOptions.socket(SocketOptionLevel(IPPROTO_IPV6), SocketOptionName(IPV6_V6ONLY)), value: 1)
        } else {
            bootstrap = bootstrap.channelOption(.socketOption(.so_broadcast), value: 1)
        }
        let address = try SocketAddress(ipAddress: host, port: port)
        return try await bootstrap.channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(Collector(received: received))
            }
        }
        .bind(to: address).get()
    }

    /// Joins the IPv6 group on each multicast target's interface, as discovery does, so the
    /// beacons sent to it there (ours included) are received.
    private func join(_ targets: [Target], on channel: any Channel) async {
        guard let multicast = channel as? any MulticastChannel,
            let group = try? SocketAddress(ipAddress: BeaconPlan.ipv6Group, port: port)
        else { return }
        let devices = (try? System.enumerateDevices()) ?? []
        let indexes = Set(targets.filter { $0.kind == "multicast" }.compactMap(\.interfaceIndex))
        for index in indexes {
            guard let device = devices.first(where: { $0.interfaceIndex == Int(index) }) else { continue }
            try? await multicast.joinGroup(group, device: device).get()
        }
    }
}

/// Keeps what arrives; errors on a datagram socket (an ICMP "unreachable" for an earlier
/// send) end nothing.
private final class Collector: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let received: NIOLockedValueBox<[BeaconListener.Datagram]>

    init(received: NIOLockedValueBox<[BeaconListener.Datagram]>) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        let datagram = BeaconListener.Datagram(
            bytes: Array(envelope.data.readableBytesView), from: envelope.remoteAddress)
        received.withLockedValue { list in
            if list.count < BeaconListener.maxDatagrams { list.append(datagram) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}

extension SocketAddress {
    fileprivate enum Family: Hashable { case inet, inet6, other }

    fileprivate var family: Family {
        switch self {
        case .v4: .inet
        case .v6: .inet6
        default: .other
        }
    }
}
