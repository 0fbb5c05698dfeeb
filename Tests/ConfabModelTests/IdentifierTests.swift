import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import Foundation
import Testing

@Suite("NodeID and ConversationID")
struct IdentifierTests {
    @Test func nodeIDHexRoundTrip() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<100 {
            let bytes = rng.bytes(NodeID.length)
            let id = NodeID(bytes: bytes)!
            #expect(id.hex.count == 64)
            #expect(id.hex == id.hex.lowercased())
            #expect(NodeID(hex: id.hex) == id)
            #expect(NodeID(hex: id.hex.uppercased()) == id)
            #expect(id.bytes == bytes)
        }
    }

    @Test func conversationIDHexRoundTrip() {
        var rng = SplitMix64(seed: 12)
        for _ in 0..<100 {
            let id = ConversationID(bytes: rng.bytes(ConversationID.length))!
            #expect(id.hex.count == 32)
            #expect(ConversationID(hex: id.hex) == id)
            #expect(ConversationID(hex: id.hex.uppercased()) == id)
        }
        #expect(ConversationID.random() != ConversationID.random())
    }

    static let badNodeHex: [String] = [
        "",
        String(repeating: "a", count: 63),
        String(repeating: "a", count: 62),
        String(repeating: "a", count: 66),
        String(repeating: "a", count: 32),
        String(repeating: "a", count: 63) + "g",
        String(repeating: "a", count: 62) + " a",
        String(repeating: "a", count: 62) + "é",
        "0x" + String(repeating: "a", count: 62),
    ]

    @Test(arguments: badNodeHex)
    func nodeIDRejectsBadHex(_ text: String) {
        #expect(NodeID(hex: text) == nil)
    }

    @Test(arguments: [
        "", String(repeating: "b", count: 31), String(repeating: "b", count: 34), String(repeating: "b", count: 64),
        String(repeating: "b", count: 31) + "z",
    ])
    func conversationIDRejectsBadHex(_ text: String) {
        #expect(ConversationID(hex: text) == nil)
    }

    @Test(arguments: [0, 1, 16, 31, 33, 64])
    func nodeIDRejectsBadByteCounts(_ count: Int) {
        #expect(NodeID(bytes: [UInt8](repeating: 7, count: count)) == nil)
    }

    @Test(arguments: [0, 15, 17, 32])
    func conversationIDRejectsBadByteCounts(_ count: Int) {
        #expect(ConversationID(bytes: [UInt8](repeating: 7, count: count)) == nil)
    }

    @Test func nodeIDFromKeyAndFingerprint() throws {
        let pair = try SigningKeyPair(seed: [UInt8](repeating: 42, count: 32))
        let id = NodeID(pair.publicKey)
        #expect(id.bytes == pair.publicKey.bytes)
        #expect(id.signingKey == pair.publicKey)
        #expect(id.shortHex == String(id.hex.prefix(8)))
        let groups = id.fingerprint.split(separator: " ")
        #expect(groups.count == 16)
        #expect(groups.allSatisfy { $0.count == 4 })
        #expect(groups.joined() == id.hex)
    }

    @Test func orderFollowsBytes() {
        let a = NodeID(bytes: [0x01] + [UInt8](repeating: 0xff, count: 31))!
        let b = NodeID(bytes: [0x02] + [UInt8](repeating: 0x00, count: 31))!
        #expect(a < b)
        #expect(!(b < a))
        let c = ConversationID(bytes: [UInt8](repeating: 0, count: 15) + [0x80])!
        let d = ConversationID(bytes: [UInt8](repeating: 0, count: 14) + [0x01, 0x00])!
        #expect(c < d)
    }

    @Test func codableAsHexStrings() throws {
        let node = nodeID(0x5a)
        let conversation = ConversationID(bytes: [UInt8](repeating: 0xc3, count: 16))!
        let nodeJSON = try JSONEncoder().encode(node)
        #expect(String(decoding: nodeJSON, as: UTF8.self) == "\"\(node.hex)\"")
        #expect(try JSONDecoder().decode(NodeID.self, from: nodeJSON) == node)
        let conversationJSON = try JSONEncoder().encode(conversation)
        #expect(try JSONDecoder().decode(ConversationID.self, from: conversationJSON) == conversation)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NodeID.self, from: Data("\"abc\"".utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ConversationID.self, from: Data("\"\(node.hex)\"".utf8))
        }
    }
}
