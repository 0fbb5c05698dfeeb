import ConfabModel
import ConfabWire
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Decodes received datagrams and passes on the beacons worth acting on.
///
/// Ignored, never fatal: anything that is not a well-formed beacon with a valid signature
/// (debug log), beacons of other networks (several may share a LAN), our own beacons
/// (broadcasts come back to their sender), and replays: a beacon not newer than the last
/// one accepted from the same key.
///
/// The IPv4 and IPv6 sockets share one `BeaconReplayGuard`: a beacon sent to both families
/// is acted on once.
final class BeaconReceiver: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let ownNode: NodeID
    private let networkKey: NetworkKey
    private let logger: Logger
    private let onBeacon: @Sendable (Beacon, SocketAddress) -> Void
    private let replays: BeaconReplayGuard
    private let counters: DiscoveryCounters

    init(
        ownNode: NodeID, networkKey: NetworkKey, logger: Logger, replays: BeaconReplayGuard = BeaconReplayGuard(),
        counters: DiscoveryCounters = DiscoveryCounters(), onBeacon: @escaping @Sendable (Beacon, SocketAddress) -> Void
    ) {
        self.counters = counters
        self.ownNode = ownNode
        self.networkKey = networkKey
        self.logger = logger
        self.replays = replays
        self.onBeacon = onBeacon
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        let sender = envelope.remoteAddress
        counters.datagrams.add(1, ordering: .relaxed)
        let beacon: Beacon
        do {
            // Our own beacons come back, and on a LAN with IPv6 every beacon arrives twice:
            // neither is worth a signature check.
            guard
                let decoded = try BeaconCodec.decode(
                    Array(envelope.data.readableBytesView), networkKey: networkKey,
                    worthVerifying: { [ownNode, replays, counters] node, timestamp in
                        guard node != ownNode, replays.isNew(node, timestamp: timestamp) else { return false }
                        counters.verified.add(1, ordering: .relaxed)
                        return true
                    })
            else {
                logger.trace("ignoring beacon of another network, our own or a replay", metadata: ["from": "\(sender)"])
                return
            }
            beacon = decoded
        } catch {
            logger.debug("ignoring datagram", metadata: ["from": "\(sender)", "reason": "\(error)"])
            return
        }
        guard replays.accept(beacon) else {
            logger.trace(
                "ignoring replayed beacon",
                metadata: ["from": "\(sender)", "node": "\(beacon.node.shortHex)", "timestamp": "\(beacon.timestamp)"])
            return
        }
        counters.accepted.add(1, ordering: .relaxed)
        onBeacon(beacon, sender)
    }

    /// A datagram socket reports errors such as an ICMP "port unreachable" for an earlier
    /// send; none of them should end discovery.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("discovery socket error", metadata: ["reason": "\(error)"])
    }
}

/// The newest timestamp accepted from each key, shared by every socket that receives
/// beacons: a beacon is acted on only when it is newer than the last one accepted.
final class BeaconReplayGuard: Sendable {
    /// Bounds the memory; past it, the node heard from longest ago is forgotten.
    static let maxRememberedNodes = 4096

    /// Each key's last accepted timestamp (the sender's clock), and when it was accepted
    /// (this node's).
    private let lastAccepted = NIOLockedValueBox([NodeID: (timestamp: Int64, heard: NIODeadline)]())

    /// Whether a beacon of `node` with this timestamp would be new; nothing is remembered.
    func isNew(_ node: NodeID, timestamp: Int64) -> Bool {
        lastAccepted.withLockedValue { last in last[node].map { timestamp > $0.timestamp } ?? true }
    }

    /// Whether the beacon is new; if so, remembered as the last accepted from its key.
    func accept(_ beacon: Beacon, now: NIODeadline = .now()) -> Bool {
        lastAccepted.withLockedValue { last in
            if let previous = last[beacon.node], beacon.timestamp <= previous.timestamp { return false }
            if last[beacon.node] == nil, last.count >= Self.maxRememberedNodes,
                let oldest = last.min(by: { $0.value.heard < $1.value.heard })?.key
            {
                last[oldest] = nil
            }
            last[beacon.node] = (beacon.timestamp, now)
            return true
        }
    }

    /// How many keys had a beacon accepted within `window` before `now`.
    func keysHeard(within window: TimeAmount, now: NIODeadline = .now()) -> Int {
        lastAccepted.withLockedValue { last in last.values.reduce(0) { $0 + (now - $1.heard <= window ? 1 : 0) } }
    }
}
