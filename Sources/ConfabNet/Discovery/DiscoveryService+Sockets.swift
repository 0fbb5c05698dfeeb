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

/// The sockets: opening them, and opening again one that an error closed.
extension DiscoveryService {

    /// A socket that closes while the service runs is opened again, after 1 s and then up
    /// to 30 s between attempts, with the targets of the moment.
    func supervise(_ channel: any Channel, _ slot: Slot) {
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

    var isRunning: Bool {
        state.withLockedValue { state in
            if case .running = state { return true }
            return false
        }
    }

    /// A receiving socket on the discovery port, or a sending one on a port of its own
    /// with an announcer for that family's targets.
    func bind(_ slot: Slot) async throws -> any Channel {
        let configuration = self.configuration
        let onBeacon = self.onBeacon
        let replays = self.replays
        let roomTags = self.roomTags
        let attention = self.attention
        let counters = self.counters
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
                            schedule: configuration.schedule, logger: configuration.logger, counters: counters,
                            keysHeard: { replays.keysHeard(within: BeaconSchedule.hearingWindow) },
                            rooms: { roomTags.withLockedValue { $0 } }))
                } else {
                    try channel.pipeline.syncOperations.addHandler(
                        BeaconReceiver(
                            ownNode: NodeID(configuration.identity.publicKey), networkKey: configuration.networkKey,
                            logger: configuration.logger, replays: replays, counters: counters,
                            attention: { beacon in attention.withLockedValue { $0.wants(beacon) } },
                            onBeacon: onBeacon))
                }
            }
        }
        .bind(to: address).get()
    }
}
