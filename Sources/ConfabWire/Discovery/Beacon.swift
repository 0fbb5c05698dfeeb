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

    public init(node: NodeID, tcpPort: UInt16, role: NodeRole, timestamp: Int64) {
        self.node = node
        self.tcpPort = tcpPort
        self.role = role
        self.timestamp = timestamp
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
        content.version = SessionCodec.protocolVersion
        content.networkTag = Data(networkKey.tag)
        content.nodeKey = Data(keyPair.publicKey.bytes)
        content.tcpPort = UInt32(beacon.tcpPort)
        content.role = beacon.role == .relay ? .relay : .person
        content.timestampMs = beacon.timestamp
        let contentBytes: [UInt8] = try! content.serializedBytes()
        var signed = Confab_V1_Beacon()
        signed.content = Data(contentBytes)
        signed.signature = Data(keyPair.sign(signatureDomain + contentBytes))
        return magic + (try! signed.serializedBytes() as [UInt8])
    }

    /// Decodes and verifies a datagram. Returns nil for a valid beacon of another network
    /// (not an error: several networks may share a LAN); throws for anything malformed or
    /// badly signed.
    public static func decode(_ datagram: [UInt8], networkKey: NetworkKey) throws(WireError) -> Beacon? {
        guard datagram.count <= maxDatagramBytes else {
            throw .tooLarge("beacon", limit: maxDatagramBytes, actual: datagram.count)
        }
        guard datagram.count > magic.count, Array(datagram.prefix(magic.count)) == magic else {
            throw .malformed("beacon magic")
        }
        let signed: Confab_V1_Beacon
        let content: Confab_V1_BeaconContent
        do {
            signed = try Confab_V1_Beacon(
                serializedBytes: Array(datagram.dropFirst(magic.count)), options: EntryCodec.decodingOptions)
            content = try Confab_V1_BeaconContent(serializedBytes: signed.content, options: EntryCodec.decodingOptions)
        } catch {
            throw .malformed("beacon")
        }
        guard [UInt8](content.networkTag) == networkKey.tag else { return nil }
        guard let node = NodeID(bytes: content.nodeKey) else { throw .malformed("beacon node key") }
        guard content.tcpPort > 0, content.tcpPort <= UInt32(UInt16.max) else {
            throw .malformed("beacon port \(content.tcpPort)")
        }
        guard signed.signature.count == SigningPublicKey.signatureLength,
            node.signingKey.verify(
                signature: [UInt8](signed.signature), message: signatureDomain + [UInt8](signed.content))
        else {
            throw .badSignature
        }
        return Beacon(
            node: node, tcpPort: UInt16(content.tcpPort), role: content.role == .relay ? .relay : .person,
            timestamp: content.timestampMs)
    }
}
