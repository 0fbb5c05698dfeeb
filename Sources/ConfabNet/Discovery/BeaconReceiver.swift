import ConfabModel
import ConfabWire
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Decodes received datagrams and passes on the beacons worth acting on.
///
/// Ignored, never fatal: anything that is not a well-formed beacon with a valid signature
/// (debug log), beacons of other networks (several may share a LAN), our own beacons
/// (broadcasts come back to their sender), replays: a beacon not newer than the last
/// one accepted from the same key, and repeats the node has no use for: a beacon that says
/// what the last one accepted from its key said, from the same address, of a key the
/// node's `BeaconAttention` does not name. Only the timestamp of a repeat is new, and
/// nothing checks that it is genuine, so it is not remembered as accepted.
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
    private let attention: @Sendable (Beacon) -> Bool

    init(
        ownNode: NodeID, networkKey: NetworkKey, logger: Logger, replays: BeaconReplayGuard = BeaconReplayGuard(),
        counters: DiscoveryCounters = DiscoveryCounters(),
        attention: @escaping @Sendable (Beacon) -> Bool = BeaconAttention.everything.wants,
        onBeacon: @escaping @Sendable (Beacon, SocketAddress) -> Void
    ) {
        self.counters = counters
        self.attention = attention
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
            // neither is worth a signature check, nor is a repeat the node has no use for.
            guard
                let decoded = try BeaconCodec.decode(
                    Array(envelope.data.readableBytesView), networkKey: networkKey,
                    worthVerifying: { [ownNode, replays, counters, attention] claimed in
                        guard claimed.node != ownNode, replays.isNew(claimed.node, timestamp: claimed.timestamp)
                        else { return false }
                        if !attention(claimed), replays.isRepeat(claimed, from: sender) {
                            counters.repeats.add(1, ordering: .relaxed)
                            return false
                        }
                        counters.verified.add(1, ordering: .relaxed)
                        return true
                    })
            else {
                logger.trace(
                    "ignoring beacon of another network, our own, a replay or a repeat", metadata: ["from": "\(sender)"]
                )
                return
            }
            beacon = decoded
        } catch {
            logger.debug("ignoring datagram", metadata: ["from": "\(sender)", "reason": "\(error)"])
            return
        }
        guard replays.accept(beacon, from: sender) else {
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

/// The newest beacon accepted from each key, shared by every socket that receives
/// beacons: a beacon is acted on only when it is newer than the last one accepted.
final class BeaconReplayGuard: Sendable {
    /// Bounds the memory; past it, the node heard from longest ago is forgotten.
    static let maxRememberedNodes = 4096

    struct Last {
        /// The last beacon accepted (checked) from the key, and the address it came from.
        var beacon: Beacon
        var source: SocketAddress?
        /// When the key was last heard (this node's clock): a beacon accepted or a repeat.
        var heard: NIODeadline
        /// The timestamp of the last repeat ignored, so that its copy over the other family
        /// is ignored too rather than checked.
        var repeatTimestamp: Int64?
    }

    private let last = NIOLockedValueBox([NodeID: Last]())

    /// Whether a beacon of `node` with this timestamp would be new; nothing is remembered.
    func isNew(_ node: NodeID, timestamp: Int64) -> Bool {
        last.withLockedValue { last in last[node].map { timestamp > $0.beacon.timestamp } ?? true }
    }

    /// Whether `claimed` (unchecked) says what the last beacon accepted from its key said,
    /// from the same address, with a newer timestamp, or is the copy of such a repeat; if so,
    /// the key counts as heard now, and nothing else is remembered.
    func isRepeat(_ claimed: Beacon, from source: SocketAddress, now: NIODeadline = .now()) -> Bool {
        last.withLockedValue { last in
            guard var entry = last[claimed.node] else { return false }
            let previous = entry.beacon
            let copy = claimed.timestamp == entry.repeatTimestamp
            guard
                copy
                    || (claimed.timestamp > previous.timestamp && claimed.tcpPort == previous.tcpPort
                        && claimed.role == previous.role && claimed.version == previous.version
                        && claimed.rooms == previous.rooms && source.ipAddress != nil
                        && source.ipAddress == entry.source?.ipAddress)
            else { return false }
            entry.heard = now
            entry.repeatTimestamp = claimed.timestamp
            last[claimed.node] = entry
            return true
        }
    }

    /// Whether the beacon is new; if so, remembered as the last accepted from its key.
    func accept(_ beacon: Beacon, from source: SocketAddress? = nil, now: NIODeadline = .now()) -> Bool {
        last.withLockedValue { last in
            if let previous = last[beacon.node], beacon.timestamp <= previous.beacon.timestamp { return false }
            if last[beacon.node] == nil, last.count >= Self.maxRememberedNodes,
                let oldest = last.min(by: { $0.value.heard < $1.value.heard })?.key
            {
                last[oldest] = nil
            }
            last[beacon.node] = Last(beacon: beacon, source: source, heard: now)
            return true
        }
    }

    /// How many keys were heard (a beacon accepted or a repeat) within `window` before `now`.
    func keysHeard(within window: TimeAmount, now: NIODeadline = .now()) -> Int {
        last.withLockedValue { last in last.values.reduce(0) { $0 + (now - $1.heard <= window ? 1 : 0) } }
    }
}
