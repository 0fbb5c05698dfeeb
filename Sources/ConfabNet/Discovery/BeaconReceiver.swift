import ConfabModel
import ConfabWire
import Logging
import NIOCore

/// Decodes received datagrams and passes on the beacons worth acting on.
///
/// Ignored, never fatal: anything that is not a well-formed beacon with a valid signature
/// (debug log), beacons of other networks (several may share a LAN), our own beacons
/// (broadcasts come back to their sender), and replays: a beacon not newer than the last
/// one accepted from the same key.
final class BeaconReceiver: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    /// Bounds the replay memory; past it, the node heard from longest ago is forgotten.
    static let maxRememberedNodes = 4096

    private let ownNode: NodeID
    private let networkKey: NetworkKey
    private let logger: Logger
    private let onBeacon: @Sendable (Beacon, SocketAddress) -> Void
    private var lastAccepted: [NodeID: Int64] = [:]

    init(
        ownNode: NodeID, networkKey: NetworkKey, logger: Logger,
        onBeacon: @escaping @Sendable (Beacon, SocketAddress) -> Void
    ) {
        self.ownNode = ownNode
        self.networkKey = networkKey
        self.logger = logger
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
        if let last = lastAccepted[beacon.node], beacon.timestamp <= last {
            logger.trace(
                "ignoring replayed beacon",
                metadata: ["from": "\(sender)", "node": "\(beacon.node.shortHex)", "timestamp": "\(beacon.timestamp)"])
            return
        }
        remember(beacon)
        onBeacon(beacon, sender)
    }

    /// A datagram socket reports errors such as an ICMP "port unreachable" for an earlier
    /// send; none of them should end discovery.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("discovery socket error", metadata: ["reason": "\(error)"])
    }

    private func remember(_ beacon: Beacon) {
        if lastAccepted[beacon.node] == nil, lastAccepted.count >= Self.maxRememberedNodes,
            let oldest = lastAccepted.min(by: { $0.value < $1.value })?.key
        {
            lastAccepted[oldest] = nil
        }
        lastAccepted[beacon.node] = beacon.timestamp
    }
}
