import ConfabCrypto
import ConfabModel
import Testing

@testable import ConfabWire

/// `BeaconCodec.inspect`: what `confab doctor` makes of every datagram on the discovery
/// port, including the beacons a node ignores (other networks) and the ones it refuses.
@Suite("Beacon inspection") struct BeaconInspectTests {
    static let alice = try! SigningKeyPair(seed: [UInt8](repeating: 0x11, count: 32))
    static let beacon = Beacon(node: NodeID(alice.publicKey), tcpPort: 7461, role: .relay, timestamp: 42)

    @Test func aBeaconOfThisNetworkIsOurs() {
        let datagram = BeaconCodec.encode(Self.beacon, signedBy: Self.alice, networkKey: .default)
        #expect(BeaconCodec.inspect(datagram, networkKey: .default) == .ours(Self.beacon))
    }

    @Test func aBeaconOfAnotherNetworkNamesItsNodeAndTag() throws {
        let other = NetworkKey.random()
        let datagram = BeaconCodec.encode(Self.beacon, signedBy: Self.alice, networkKey: other)
        #expect(BeaconCodec.inspect(datagram, networkKey: .default) == .otherNetwork(Self.beacon, tag: other.tag))
        // What a node's receiver does with it is unchanged: not an error, not ours.
        #expect(try BeaconCodec.decode(datagram, networkKey: .default) == nil)
    }

    @Test func anotherNetworksBeaconIsStillVerified() {
        var datagram = BeaconCodec.encode(Self.beacon, signedBy: Self.alice, networkKey: .random())
        datagram[datagram.count - 1] ^= 0x01  // the last byte of the signature
        #expect(BeaconCodec.inspect(datagram, networkKey: .default) == .invalid(.badSignature))
    }

    @Test func aBeaconSignedByAnotherKeyHasABadSignature() throws {
        let mallory = SigningKeyPair.generate()
        var content = BeaconCodec.encode(Self.beacon, signedBy: mallory, networkKey: .default)
        // Mallory's key replaced by Alice's: the signature no longer matches the key.
        let malloryKey = mallory.publicKey.bytes
        let aliceKey = Self.alice.publicKey.bytes
        let start = try #require(Self.firstIndex(of: malloryKey, in: content))
        content.replaceSubrange(start..<start + malloryKey.count, with: aliceKey)
        #expect(BeaconCodec.inspect(content, networkKey: .default) == .invalid(.badSignature))
    }

    @Test func strayDatagramsAreMalformed() {
        let cases: [[UInt8]] = [
            [], Array("CFB1".utf8), Array("hello".utf8), Array("CFB1".utf8) + [0xff, 0xff, 0xff],
            Array("CFB0".utf8)
                + BeaconCodec.encode(Self.beacon, signedBy: Self.alice, networkKey: .default).dropFirst(4),
        ]
        for datagram in cases {
            guard case .invalid(let error) = BeaconCodec.inspect(datagram, networkKey: .default) else {
                Issue.record("\(datagram) was not refused")
                continue
            }
            #expect(error.category == .malformed)
        }
        let huge = [UInt8](repeating: 0, count: BeaconCodec.maxDatagramBytes + 1)
        #expect(
            BeaconCodec.inspect(huge, networkKey: .default) == .invalid(.tooLarge("beacon", limit: 512, actual: 513)))
    }

    /// Whatever `decode` accepts, `inspect` calls ours; whatever it refuses, invalid; and
    /// what it ignores as another network's, otherNetwork or (badly signed) invalid.
    @Test func inspectAgreesWithDecodeOnCorruptedBeacons() {
        let datagram = BeaconCodec.encode(Self.beacon, signedBy: Self.alice, networkKey: .default)
        for index in 0..<datagram.count {
            for bit in [0x01, 0x80] as [UInt8] {
                var copy = datagram
                copy[index] ^= bit
                let inspected = BeaconCodec.inspect(copy, networkKey: .default)
                switch Result(catching: { try BeaconCodec.decode(copy, networkKey: .default) }) {
                case .success(let decoded?): #expect(inspected == .ours(decoded))
                case .success(nil):
                    if case .ours = inspected { Issue.record("byte \(index): ignored by decode, ours by inspect") }
                case .failure:
                    if case .invalid = inspected {} else { Issue.record("byte \(index): refused by decode only") }
                }
            }
        }
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}
