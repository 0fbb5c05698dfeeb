import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// The link messages' limits (Protocol.md §20.10): each message round-trips, and each field
/// beyond its rule is refused by the decoder, not passed on.
@Suite struct LinkMessageCodecTests {
    static let person = NodeID(SigningKeyPair.generate().publicKey)
    static let key = LinkEpochKey(
        conversation: ConversationID(bytes: [UInt8](repeating: 1, count: 16))!, author: person, seq: 3,
        key: [UInt8](repeating: 2, count: 32))
    static let grant = LinkGrant(
        person: person, deviceEntries: [[1, 2, 3]], displayName: "alice", networkKey: [UInt8](repeating: 7, count: 32),
        keyMessages: 1)

    @Test func everyMessageRoundTrips() throws {
        let messages: [LinkMessage] = [
            .request(deviceName: "laptop"), .confirm, .refuse(reason: "no"), .grant(Self.grant), .keys([Self.key]),
            .done,
        ]
        for message in messages {
            #expect(try LinkMessageCodec.decode(LinkMessageCodec.encode(message)) == message)
        }
    }

    @Test func fieldsBeyondTheirRulesAreRefused() {
        var longKeys = Self.key
        longKeys.seq = 1 << 48 + 1
        var shortKey = Self.key
        shortKey.key = [1]
        var noEntries = Self.grant
        noEntries.deviceEntries = []
        var shortNetwork = Self.grant
        shortNetwork.networkKey = [1]
        var manyKeyMessages = Self.grant
        manyKeyMessages.keyMessages = LinkMessageCodec.maxKeyMessages + 1
        var keyLikeName = Self.grant
        keyLikeName.displayName = Self.person.hex
        let refused: [LinkMessage] = [
            .request(deviceName: ""), .request(deviceName: " laptop"), .request(deviceName: "a\u{7}b"),
            .request(deviceName: String(repeating: "x", count: 65)),
            .refuse(reason: String(repeating: "x", count: 201)),
            .grant(noEntries), .grant(shortNetwork), .grant(manyKeyMessages), .grant(keyLikeName),
            .keys([]), .keys([longKeys]), .keys([shortKey]),
            .keys(Array(repeating: Self.key, count: LinkMessageCodec.maxKeysPerMessage + 1)),
        ]
        for message in refused {
            #expect(throws: LinkMessageCodec.Failure.self, "\(message)") {
                _ = try LinkMessageCodec.decode(LinkMessageCodec.encode(message))
            }
        }
    }

    @Test func aMessageOfNoKindOrTooLargeIsRefused() {
        #expect(throws: LinkMessageCodec.Failure.self) { _ = try LinkMessageCodec.decode([]) }
        #expect(throws: LinkMessageCodec.Failure.self) { _ = try LinkMessageCodec.decode([0xff, 0xff]) }
        #expect(throws: LinkMessageCodec.Failure.self) {
            _ = try LinkMessageCodec.decode([UInt8](repeating: 0, count: LinkMessageCodec.maxMessageBytes + 1))
        }
    }
}
