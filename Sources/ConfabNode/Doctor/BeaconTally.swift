import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabWire

/// Sorts the datagrams that arrived on the discovery port into facts: nodes of this network
/// and of others (each key once, at the first address it beaconed from, IPv4 preferred), datagrams with a bad
/// signature or none at all, and which of the doctor's own beacons came back. Beacons of
/// this node's key that the doctor did not send are the running node's own: not counted.
/// Pure: the same datagrams always give the same tally.
struct BeaconTally: Sendable, Equatable {
    var heard = DoctorFacts.Heard()
    /// Timestamps of the doctor's own beacons that came back.
    var echoed: Set<Int64> = []

    /// `host` is the datagram's source as a peer is dialled (`10.0.0.2`, `fe80::1%eth0`).
    init(
        _ datagrams: [(bytes: [UInt8], host: String)], networkKey: NetworkKey, me: NodeID, sent: Set<Int64>,
        name: (NodeID) -> String? = { _ in nil }
    ) {
        var ours: [NodeID: DoctorFacts.HeardNode] = [:]
        var others: [NodeID: DoctorFacts.HeardNode] = [:]
        var order: [NodeID] = []
        for datagram in datagrams {
            let beacon: Beacon
            let tag: [UInt8]?
            switch BeaconCodec.inspect(datagram.bytes, networkKey: networkKey) {
            case .ours(let decoded):
                (beacon, tag) = (decoded, nil)
            case .otherNetwork(let decoded, let otherTag):
                (beacon, tag) = (decoded, otherTag)
            case .invalid(let error):
                if error.category == .badSignature {
                    heard.badSignature += 1
                } else {
                    heard.malformed += 1
                }
                continue
            }
            if beacon.node == me {
                if tag == nil, sent.contains(beacon.timestamp) { echoed.insert(beacon.timestamp) }
                continue
            }
            let host = datagram.host
            let node = DoctorFacts.HeardNode(
                id: beacon.node.hex, name: name(beacon.node),
                address: HostPort(host: host, port: Int(beacon.tcpPort)).description,
                role: beacon.role.rawValue, tag: tag.map(Hex.encode), version: beacon.version)
            if !order.contains(beacon.node) { order.append(beacon.node) }
            // A node beacons on both families: its IPv4 address, once seen, is the one shown.
            func keep(_ seen: DoctorFacts.HeardNode?) -> Bool {
                guard let seen else { return true }
                return seen.address.hasPrefix("[") && !node.address.hasPrefix("[")
            }
            if tag == nil {
                if keep(ours[beacon.node]) { ours[beacon.node] = node }
            } else {
                if keep(others[beacon.node]) { others[beacon.node] = node }
            }
        }
        heard.nodes = order.compactMap { ours[$0] }
        heard.otherNetworks = order.compactMap { ours[$0] == nil ? others[$0] : nil }
    }
}
