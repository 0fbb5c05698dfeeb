import ConfabModel
import ConfabTestSupport
import Testing

@Suite("Safety numbers")
struct SafetyNumberTests {
    /// The long-term keys of the public secret-handshake vector (shs1-handshake.json), so
    /// another implementation can check its digits against real Ed25519 keys. The digits
    /// were also computed independently with Python's hashlib.blake2b.
    static let client = NodeID(hex: "e1a2498849775e54d066e978172ee1f5c64fb00097d046926f175e6519c01e23")!
    static let server = NodeID(hex: "2abe719910f8bbc3a3c9bbcc56ee42973473a004f4010c4caa81420cca360146")!

    @Test func matchesTheVectorInProtocolMd() {
        let number = SafetyNumber(Self.client, Self.server)
        #expect(number.description == "77440 58723 88764 40600 05857 32594 71990 49715 35582 95784 28153 88229")
        #expect(number.lines == ["77440 58723 88764 40600", "05857 32594 71990 49715", "35582 95784 28153 88229"])
        #expect(number.digits.count == 60)
    }

    @Test func isTheSameFromEitherSide() {
        var rng = SplitMix64(seed: 41)
        for _ in 0..<200 {
            let a = NodeID(bytes: rng.bytes(32))!
            let b = NodeID(bytes: rng.bytes(32))!
            #expect(SafetyNumber(a, b) == SafetyNumber(b, a))
        }
    }

    @Test func changesWhenEitherKeyChanges() {
        var rng = SplitMix64(seed: 42)
        var seen = Set<String>()
        let a = NodeID(bytes: rng.bytes(32))!
        for _ in 0..<200 {
            let other = NodeID(bytes: rng.bytes(32))!
            #expect(seen.insert(SafetyNumber(a, other).digits).inserted)
        }
        // One flipped bit in one key is a different number.
        var flipped = Self.server.bytes
        flipped[31] ^= 1
        #expect(SafetyNumber(Self.client, NodeID(bytes: flipped)!) != SafetyNumber(Self.client, Self.server))
    }

    @Test func isTwelveGroupsOfFiveDigits() {
        var rng = SplitMix64(seed: 43)
        for _ in 0..<100 {
            let number = SafetyNumber(NodeID(bytes: rng.bytes(32))!, NodeID(bytes: rng.bytes(32))!)
            #expect(number.groups.count == 12)
            #expect(number.groups.allSatisfy { $0.count == 5 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        }
    }
}
