import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// Protocol.md §18.6: the room `general` on the default network, read out of the document
/// and made again by the code; and what a decoder refuses of a room create and a `Rooms`
/// message.
@Suite struct RoomVectorTests {
    private func documented() throws -> [String: [UInt8]] {
        let text = try ProtocolDocument.text()
        let start = try #require(text.range(of: "### 18.6 Test vector"))
        return Dictionary(
            ProtocolDocument.fields(String(text[start.lowerBound...])).map { ($0.name, $0.bytes) },
            uniquingKeysWith: { first, _ in first })
    }

    @Test func theDocumentedRoomIsTheOneTheCodeDerives() throws {
        let vector = try documented()
        #expect(vector["network_key"] == NetworkKey.default.bytes)
        let genesis = RoomGenesis(name: RoomName(exactly: "general")!, network: .default)
        #expect(vector["room_author"] == genesis.author.bytes)
        #expect(vector["room_key"] == genesis.key.unsafeCopy)
        #expect(vector["room_id"] == genesis.conversationID.bytes)
        #expect(vector["room_create"] == genesis.create.content)
        #expect(vector["room_signature"] == genesis.create.signature)
        #expect(vector["room_hash"] == genesis.create.hash.bytes)
        let decoded = try EntryCodec.decode(EntryCodec.encode(genesis.create))
        #expect(decoded.body == .room(RoomName(exactly: "general")!))
    }

    @Test func aRoomCreateThatIsNotItsAuthorsIsMalformed() throws {
        let genesis = RoomGenesis(name: RoomName(exactly: "general")!, network: .default)
        let other = SigningKeyPair.generate()
        // Another key claiming the room's id, a second entry, a timestamp: each malformed.
        let drafts = [
            (
                other,
                EntryDraft(
                    conversationID: genesis.conversationID, seq: 1, previous: nil, timestamp: 0, clock: VectorClock(),
                    body: .room(genesis.name))
            ),
            (
                genesis.signing,
                EntryDraft(
                    conversationID: genesis.conversationID, seq: 1, previous: nil, timestamp: 5, clock: VectorClock(),
                    body: .room(genesis.name))
            ),
        ]
        for (key, draft) in drafts {
            #expect(throws: WireError.self) {
                try EntryCodec.decode(EntryCodec.encode(EntryCodec.sign(draft, with: key)))
            }
        }
    }

    @Test func roomsMessagesRoundTripAndBadOnesAreMalformed() throws {
        let names = ["design", "general"].map { RoomName(exactly: $0)! }
        #expect(try SessionCodec.decode(SessionCodec.encode(.rooms(names))) == .rooms(names))
        for bad in [
            ["General"], ["a", "a"], ["#x"], Array(repeating: "x", count: 65).enumerated().map { "x\($0.offset)" },
        ] {
            var wire = Confab_V1_SessionMessage()
            var rooms = Confab_V1_Rooms()
            rooms.names = bad
            wire.rooms = rooms
            #expect(throws: WireError.self) { try SessionCodec.decode(try wire.serializedBytes() as [UInt8]) }
        }
    }

    /// `Prune` (§18.8): sorted ids of 16 bytes, at most 64, none twice.
    @Test func pruneMessagesRoundTripAndBadOnesAreMalformed() throws {
        let ids = (0..<3).map { _ in ConversationID.random() }.sorted()
        #expect(try SessionCodec.decode(SessionCodec.encode(.prune(ids))) == .prune(ids))
        let one = Data(ids[0].bytes)
        for bad in [
            [one, one], [Data(repeating: 1, count: 15)], (0..<65).map { _ in Data(ConversationID.random().bytes) },
        ] {
            var wire = Confab_V1_SessionMessage()
            var prune = Confab_V1_Prune()
            prune.conversationIds = bad
            wire.prune = prune
            #expect(throws: WireError.self) { try SessionCodec.decode(try wire.serializedBytes() as [UInt8]) }
        }
    }

    @Test func typedNamesAreReadAsPeopleMeanThem() {
        #expect(RoomName(typed: " #General ")?.text == "general")
        #expect(RoomName(typed: "#") == nil)
        #expect(RoomName(typed: "-x") == nil)
        #expect(RoomName(typed: String(repeating: "a", count: 33)) == nil)
        #expect(RoomName(exactly: "é") == nil)
    }
}

/// Protocol.md §18.7: room tags in beacons.
@Suite struct BeaconRoomTagTests {
    private let identity = SigningKeyPair.generate()

    @Test func tagsTravelInTheSignedBeaconAndTooManyAreMalformed() throws {
        let tags = (0..<3).map { _ in RoomTag(room: .random()) }
        let beacon = Beacon(node: NodeID(identity.publicKey), tcpPort: 7461, role: .person, timestamp: 1, rooms: tags)
        let decoded = try BeaconCodec.decode(
            BeaconCodec.encode(beacon, signedBy: identity, networkKey: .default), networkKey: .default)
        #expect(decoded?.rooms == tags)
        // An encoder keeps the first 8; a datagram with 9, or with bytes that are no whole
        // tag, is malformed.
        for bytes in [72, 12] {
            var content = Confab_V1_BeaconContent()
            content.version = 2
            content.networkTag = Data(NetworkKey.default.tag)
            content.nodeKey = Data(identity.publicKey.bytes)
            content.tcpPort = 7461
            content.timestampMs = 1
            content.rooms = Data(repeating: 7, count: bytes)
            let contentBytes: [UInt8] = try content.serializedBytes()
            var signed = Confab_V1_Beacon()
            signed.content = Data(contentBytes)
            signed.signature = Data(identity.sign(Array("confab/beacon/v1".utf8) + [0] + contentBytes))
            let datagram = BeaconCodec.magic + (try signed.serializedBytes() as [UInt8])
            #expect(throws: WireError.self) { try BeaconCodec.decode(datagram, networkKey: .default) }
        }
    }

    @Test func theDocumentedTagIsTheCodes() throws {
        let text = try ProtocolDocument.text()
        let start = try #require(text.range(of: "### 18.6 Test vector"))
        let fields = ProtocolDocument.fields(String(text[start.lowerBound...]))
        let documented = try #require(fields.first { $0.name == "room_tag" }?.bytes)
        #expect(
            documented
                == RoomTag(room: RoomGenesis(name: RoomName(exactly: "general")!, network: .default).conversationID)
                .bytes)
    }
}
