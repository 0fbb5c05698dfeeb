import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf

/// A node's signed announcement on the LAN (Protocol.md §11). The sender's IP address is
/// the datagram's source address; the beacon says which TCP port to dial and whose key
/// answers there.
public struct Beacon: Sendable, Equatable {
    public let node: NodeID
    public let tcpPort: UInt16
    public let role: NodeRole
    public let timestamp: Int64
    /// The protocol version the sender speaks (Protocol.md §12.1): a node does not dial a
    /// peer again on beacons of the version it could not talk with.
    public let version: UInt32
    /// Tags of rooms the sender joined (Protocol.md §18.7): members of a room find each
    /// other by them. A claim like the rest of the beacon: only a hint whom to dial.
    public let rooms: [RoomTag]

    public init(
        node: NodeID, tcpPort: UInt16, role: NodeRole, timestamp: Int64,
        version: UInt32 = SessionCodec.protocolVersion, rooms: [RoomTag] = []
    ) {
        self.node = node
        self.tcpPort = tcpPort
        self.role = role
        self.timestamp = timestamp
        self.version = version
        self.rooms = rooms
    }
}

public enum BeaconCodec {
    /// "CFB1": lets a receiver drop stray datagrams before any decoding.
    public static let magic: [UInt8] = [0x43, 0x46, 0x42, 0x31]
    public static let maxDatagramBytes = 512
    static let signatureDomain: [UInt8] = Array("confab/beacon/v1".utf8) + [0]

    public static func encode(
        _ beacon: Beacon, signedBy keyPair: SigningKeyPair, networkKey: NetworkKey
    ) -> [UInt8] {
        var content = Confab_V1_BeaconContent()
        content.version = beacon.version
        content.networkTag = Data(networkKey.tag)
        content.nodeKey = Data(keyPair.publicKey.bytes)
        content.tcpPort = UInt32(beacon.tcpPort)
        content.role = beacon.role == .relay ? .relay : .person
        content.timestampMs = beacon.timestamp
        content.rooms = Data(beacon.rooms.prefix(RoomTag.maxInBeacon).flatMap(\.bytes))
        let contentBytes: [UInt8] = try! content.serializedBytes()
        var signed = Confab_V1_Beacon()
        signed.content = Data(contentBytes)
        signed.signature = Data(keyPair.sign(signatureDomain + contentBytes))
        return magic + (try! signed.serializedBytes() as [UInt8])
    }

    /// Decodes and verifies a datagram. Returns nil for a valid beacon of another network
    /// (not an error: several networks may share a LAN); throws for anything malformed or
    /// badly signed.
    ///
    /// `worthVerifying`, given the beacon as it claims to be (checked for form, not yet for
    /// its signature), says whether it could change anything for the receiver; one that
    /// could not (the receiver's own, one not newer than the last accepted from that key, a
    /// repeat of that one) is dropped, as nil, before its signature is checked, which is
    /// most of a beacon's cost (Protocol.md §11.4). Only a beacon returned may be
    /// remembered as accepted.
    public static func decode(
        _ datagram: [UInt8], networkKey: NetworkKey,
        worthVerifying: (_ claimed: Beacon) -> Bool = { _ in true }
    ) throws(WireError) -> Beacon? {
        let (signed, content) = try frame(datagram)
        guard [UInt8](content.networkTag) == networkKey.tag else { return nil }
        let claimed = try claims(content)
        guard worthVerifying(claimed) else { return nil }
        try verify(signed, claimed)
        return claimed
    }

    /// What a datagram is, for a diagnosis (`confab doctor`) rather than for acting on it:
    /// the checks of `decode`, but a beacon of another network is verified too and returned
    /// with its tag, so that the nodes of other networks on the LAN can be counted by key.
    /// Costs a signature check per datagram whatever its network: not for a node's receiver,
    /// which must not spend that on every network sharing the LAN (Protocol.md §11.4).
    public static func inspect(_ datagram: [UInt8], networkKey: NetworkKey) -> BeaconInspection {
        do {
            let (signed, content) = try frame(datagram)
            let beacon = try claims(content)
            try verify(signed, beacon)
            let tag = [UInt8](content.networkTag)
            return tag == networkKey.tag ? .ours(beacon) : .otherNetwork(beacon, tag: tag)
        } catch {
            return .invalid(error)
        }
    }

    /// Checks 1 and 2 of Protocol.md §11.4: size, magic, both protobuf layers.
    private static func frame(
        _ datagram: [UInt8]
    ) throws(WireError) -> (Confab_V1_Beacon, Confab_V1_BeaconContent) {
        guard datagram.count <= maxDatagramBytes else {
            throw .tooLarge("beacon", limit: maxDatagramBytes, actual: datagram.count)
        }
        guard datagram.count > magic.count, Array(datagram.prefix(magic.count)) == magic else {
            throw .malformed("beacon magic")
        }
        do {
            let signed = try Confab_V1_Beacon(
                serializedBytes: Array(datagram.dropFirst(magic.count)), options: EntryCodec.decodingOptions)
            let content = try Confab_V1_BeaconContent(
                serializedBytes: signed.content, options: EntryCodec.decodingOptions)
            return (signed, content)
        } catch {
            throw .malformed("beacon")
        }
    }

    /// Check 4 of Protocol.md §11.4 (key, port, room tags): the beacon as it claims to be.
    private static func claims(_ content: Confab_V1_BeaconContent) throws(WireError) -> Beacon {
        guard let node = NodeID(bytes: content.nodeKey) else { throw .malformed("beacon node key") }
        guard content.tcpPort > 0, content.tcpPort <= UInt32(UInt16.max) else {
            throw .malformed("beacon port \(content.tcpPort)")
        }
        guard content.rooms.count <= RoomTag.maxInBeacon * RoomTag.length, content.rooms.count % RoomTag.length == 0
        else { throw .malformed("beacon room tags (\(content.rooms.count) bytes)") }
        let rooms = stride(from: 0, to: content.rooms.count, by: RoomTag.length).map {
            RoomTag(bytes: [UInt8](content.rooms[$0..<$0 + RoomTag.length]))
        }
        return Beacon(
            node: node, tcpPort: UInt16(content.tcpPort), role: content.role == .relay ? .relay : .person,
            timestamp: content.timestampMs, version: content.version, rooms: rooms)
    }

    /// Check 5 of Protocol.md §11.4: the signature, over the content as received.
    private static func verify(_ signed: Confab_V1_Beacon, _ claimed: Beacon) throws(WireError) {
        guard signed.signature.count == SigningPublicKey.signatureLength,
            claimed.node.signingKey.verify(
                signature: [UInt8](signed.signature), message: signatureDomain + [UInt8](signed.content))
        else {
            throw .badSignature
        }
    }
}

/// What `BeaconCodec.inspect` made of a datagram.
public enum BeaconInspection: Sendable, Equatable {
    /// A valid beacon of this network.
    case ours(Beacon)
    /// A validly signed beacon of another network: `tag` is that network's (§11.2).
    case otherNetwork(Beacon, tag: [UInt8])
    /// Not a beacon, or not a valid one: too large, malformed, or badly signed.
    case invalid(WireError)
}
