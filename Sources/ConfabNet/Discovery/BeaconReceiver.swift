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

    init(
        ownNode: NodeID, networkKey: NetworkKey, logger: Logger, replays: BeaconReplayGuard = BeaconReplayGuard(),
        onBeacon: @escaping @Sendable (Beacon, SocketAddress) -> Void
    ) {
        self.ownNode = ownNode
        self.networkKey = networkKey
        self.logger = logger
        self.replays = replays
        self.onBeacon = onBeacon
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        let sender = envelope.remoteAddress
        let beacon: Beacon
        do {
            guard let decoded = try BeaconCodec.decode(Array(envelope.data.readableBytesView), networkKey: networkKey)
            else {
                logger.trace("ignoring beacon of another network", metadata: ["from": "\(sender)"])
                return
            }
            beacon = decoded
        } catch {
            logger.debug("ignoring datagram", metadata: ["from": "\(sender)", "reason": "\(error)"])
            return
        }
        guard beacon.node != ownNode else { return }
        guard replays.accept(beacon) else {
            logger.trace(
                "ignoring replayed beacon",
                metadata: ["from": "\(sender)", "node": "\(beacon.node.shortHex)", "timestamp": "\(beacon.timestamp)"])
            return
        }
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

    private let lastAccepted = NIOLockedValueBox([NodeID: Int64]())

    /// Whether the beacon is new; if so, remembered as the last accepted from its key.
    func accept(_ beacon: Beacon) -> Bool {
        lastAccepted.withLockedValue { last in
            if let previous = last[beacon.node], beacon.timestamp <= previous { return false }
            if last[beacon.node] == nil, last.count >= Self.maxRememberedNodes,
                let oldest = last.min(by: { $0.value < $1.value })?.key
            {
                last[oldest] = nil
            }
            last[beacon.node] = beacon.timestamp
            return true
        }
    }
}
