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
/// the same network (Protocol.md §11).
///
/// `onBeacon` is called on the service's event loop for every new beacon: the sender's
/// address is where it came from, and `beacon.tcpPort` says where to dial. Deciding that
/// a peer went offline (silent for about three intervals) is up to the caller.
public final class DiscoveryService: Sendable {
    private enum State {
        case idle
        case starting
        case running(any Channel)
        case stopped
    }

    private let configuration: DiscoveryConfiguration
    private let group: any EventLoopGroup
    private let onBeacon: @Sendable (Beacon, SocketAddress) -> Void
    private let state = NIOLockedValueBox(State.idle)

    public init(
        configuration: DiscoveryConfiguration, group: any EventLoopGroup,
        onBeacon: @escaping @Sendable (Beacon, SocketAddress) -> Void
    ) {
        self.configuration = configuration
        self.group = group
        self.onBeacon = onBeacon
    }

    /// Binds the UDP socket and sends the first beacon. The socket allows other sockets on
    /// the same port (SO_REUSEADDR and SO_REUSEPORT), so several nodes on one machine can
    /// all hear broadcasts, and may send to broadcast addresses (SO_BROADCAST).
    public func start() async throws {
        try state.withLockedValue { state in
            switch state {
            case .idle: state = .starting
            case .starting, .running: throw DiscoveryError.alreadyStarted
            case .stopped: throw DiscoveryError.stopped
            }
        }
        let configuration = self.configuration
        let onBeacon = self.onBeacon
        let channel: any Channel
        do {
            channel = try await DatagramBootstrap(group: group)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
                .channelOption(.socketOption(.so_broadcast), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            BeaconReceiver(
                                ownNode: NodeID(configuration.identity.publicKey),
                                networkKey: configuration.networkKey, logger: configuration.logger,
                                onBeacon: onBeacon),
                            BeaconAnnouncer(
                                identity: configuration.identity, networkKey: configuration.networkKey,
                                tcpPort: configuration.tcpPort, role: configuration.role,
                                targets: configuration.targets, interval: configuration.interval,
                                logger: configuration.logger),
                        ])
                    }
                }
                .bind(host: configuration.bindHost, port: configuration.port).get()
        } catch {
            state.withLockedValue { state in
                if case .starting = state { state = .idle }
            }
            throw error
        }
        let stoppedMeanwhile = state.withLockedValue { state in
            guard case .starting = state else { return true }
            state = .running(channel)
            return false
        }
        if stoppedMeanwhile {
            try? await channel.close()
            throw DiscoveryError.stopped
        }
        configuration.logger.info(
            "discovery started",
            metadata: [
                "address": "\(channel.localAddress.map { "\($0)" } ?? "?")",
                "targets": "\(configuration.targets.map { "\($0)" }.joined(separator: ", "))",
            ])
    }

    /// The address the UDP socket is bound to, once started.
    public var localAddress: SocketAddress? {
        state.withLockedValue { state in
            if case .running(let channel) = state { return channel.localAddress }
            return nil
        }
    }

    /// Closes the socket: no more beacons are sent or reported. Final.
    public func stop() async {
        let channel: (any Channel)? = state.withLockedValue { state in
            defer { state = .stopped }
            if case .running(let channel) = state { return channel }
            return nil
        }
        try? await channel?.close()
    }

    /// Sends a beacon at once, outside the schedule (for example on a resync).
    public func announceNow() {
        let channel: (any Channel)? = state.withLockedValue { state in
            if case .running(let channel) = state { return channel }
            return nil
        }
        guard let channel else { return }
        channel.eventLoop.execute {
            try? channel.pipeline.syncOperations.handler(type: BeaconAnnouncer.self).announceNow()
        }
    }
}
