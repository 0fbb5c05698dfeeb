import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabWire
import Testing

@testable import ConfabNode

/// How the doctor sorts what arrives on the discovery port.
@Suite("Doctor: beacons heard") struct BeaconTallyTests {
    static let me = try! SigningKeyPair(seed: [UInt8](repeating: 1, count: 32))
    static let bob = try! SigningKeyPair(seed: [UInt8](repeating: 2, count: 32))
    static let carol = try! SigningKeyPair(seed: [UInt8](repeating: 3, count: 32))
    static let elsewhere = NetworkKey(bytes: [UInt8](repeating: 9, count: 32))!

    static func beacon(
        _ key: SigningKeyPair, _ timestamp: Int64, network: NetworkKey = .default, port: UInt16 = 7461
    )
        -> [UInt8]
    {
        BeaconCodec.encode(
            Beacon(node: NodeID(key.publicKey), tcpPort: port, role: .person, timestamp: timestamp), signedBy: key,
            networkKey: network)
    }

    @Test func sortsNodesByNetworkAndCountsTheRest() {
        let datagrams: [(bytes: [UInt8], host: String)] = [
            (Self.beacon(Self.bob, 1), "10.0.0.2"),
            (Self.beacon(Self.bob, 2), "10.0.0.2"),  // the same node again: once
            (Self.beacon(Self.carol, 1, network: Self.elsewhere), "10.0.0.3"),
            (Array(Self.beacon(Self.bob, 3).dropLast()) + [0], "10.0.0.9"),  // signature broken
            (Array("hello".utf8), "10.0.0.9"),
        ]
        let tally = BeaconTally(
            datagrams, networkKey: .default, me: NodeID(Self.me.publicKey), sent: [],
            name: { $0 == NodeID(Self.bob.publicKey) ? "bob" : nil })
        #expect(
            tally.heard.nodes == [
                .init(
                    id: NodeID(Self.bob.publicKey).hex, name: "bob", address: "10.0.0.2:7461", role: "person",
                    version: 2)
            ])
        #expect(
            tally.heard.otherNetworks == [
                .init(
                    id: NodeID(Self.carol.publicKey).hex, address: "10.0.0.3:7461", role: "person",
                    tag: Hex.encode(Self.elsewhere.tag), version: 2)
            ])
        #expect(tally.heard.badSignature == 1)
        #expect(tally.heard.malformed == 1)
    }

    @Test func ourOwnBeaconsAreEchoesOnlyWhenTheDoctorSentThem() {
        let me = NodeID(Self.me.publicKey)
        let datagrams: [(bytes: [UInt8], host: String)] = [
            (Self.beacon(Self.me, 100), "10.0.0.1"),  // the doctor's, back from its target
            (Self.beacon(Self.me, 50), "10.0.0.1"),  // the running node's own: not an echo, not a peer
        ]
        let tally = BeaconTally(datagrams, networkKey: .default, me: me, sent: [100, 101])
        #expect(tally.echoed == [100])
        #expect(tally.heard.nodes.isEmpty)
    }

    @Test func anIPv6SourceIsBracketed() {
        let tally = BeaconTally(
            [(Self.beacon(Self.bob, 1), "fe80::2%eth0")], networkKey: .default, me: NodeID(Self.me.publicKey), sent: [])
        #expect(tally.heard.nodes.first?.address == "[fe80::2%eth0]:7461")
    }

    @Test func aNodeHeardOnBothFamiliesIsShownAtItsIPv4Address() {
        let tally = BeaconTally(
            [
                (Self.beacon(Self.bob, 1), "fe80::2%eth0"), (Self.beacon(Self.bob, 2), "10.0.0.2"),
                (Self.beacon(Self.bob, 3), "fe80::2%eth0"),
            ],
            networkKey: .default, me: NodeID(Self.me.publicKey), sent: [])
        #expect(tally.heard.nodes.map(\.address) == ["10.0.0.2:7461"])
    }
}
