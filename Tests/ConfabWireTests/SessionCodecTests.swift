import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

@Suite("Session messages and beacons") struct SessionCodecTests {
    static let alice = try! SigningKeyPair(seed: [UInt8](repeating: 0x11, count: 32))
    static let conversation = ConversationID(bytes: [UInt8](repeating: 7, count: 16))!

    static let samples: [SessionMessage] = [
        .hello(.init(features: ["x"], displayName: "Alice", role: .relay, listenPort: 7461)),
        .clocks([.init(conversation: conversation, clock: VectorClock([NodeID(alice.publicKey): 3]))]),
        .clocks([]),
        .request([.init(conversation: conversation, clock: VectorClock([NodeID(alice.publicKey): 3]))]),
        .request([]),
        .entries([[1, 2, 3], []]),
        .want(.init(conversation: conversation, author: NodeID(alice.publicKey), after: 9)),
        .ping(42), .pong(42), .bye("done"),
        .typing(.init(conversation: conversation, active: true)),
        .typing(.init(conversation: conversation, active: false)),
        .fileWant(.init(file: file, manifest: true, chunks: [0, 7, 16383])),
        .fileManifest(file: file, manifest: [UInt8](repeating: 4, count: 64)),
        .fileChunk(file: file, index: 3, data: [UInt8](repeating: 5, count: 100)),
        .fileHave(.init(file: file, manifest: true, chunks: [0xff, 0x01])),
    ]
    static let file = FileID(bytes: [UInt8](repeating: 9, count: 32))!

    @Test(arguments: samples) func roundTrip(_ message: SessionMessage) throws {
        #expect(try SessionCodec.decode(SessionCodec.encode(message)) == message)
    }

    /// A request is a Clocks message with `request` set: a peer that does not know the
    /// field reads it as plain clocks, which it answers as it answers any (Protocol.md §12.5).
    @Test func aRequestIsClocksWithTheFlagSet() throws {
        let clocks = [SessionMessage.ConversationClock(conversation: Self.conversation, clock: VectorClock())]
        let request = SessionCodec.encode(.request(clocks))
        let plain = SessionCodec.encode(.clocks(clocks))
        #expect(request.count == plain.count + 2, "one bool field more")
        var wire = try Confab_V1_SessionMessage(serializedBytes: request)
        #expect(wire.clocks.request)
        wire.clocks.request = false
        let plainAgain: [UInt8] = try wire.serializedBytes()
        #expect(try SessionCodec.decode(plainAgain) == .clocks(clocks))
        #expect(
            SessionMessage.Hello(displayName: "a", role: .person, listenPort: 1).features == [
                "requests", "partial-clocks", "rooms", "large-groups", "device-lists",
            ])
    }

    @Test func unknownKindIsSkippedNotAnError() throws {
        // An empty SessionMessage: a kind from a newer version, as far as we can tell.
        #expect(try SessionCodec.decode([UInt8]()) == nil)
    }

    @Test func limitsAreEnforced() throws {
        #expect(throws: WireError.self) {
            try SessionCodec.decode([UInt8](repeating: 0, count: SessionCodec.maxMessageBytes + 1))
        }
        let tooMany = SessionMessage.entries(Array(repeating: [1], count: SessionCodec.maxEntriesPerMessage + 1))
        #expect(throws: WireError.self) { try SessionCodec.decode(SessionCodec.encode(tooMany)) }
        let longName = SessionMessage.hello(
            .init(displayName: String(repeating: "x", count: 65), role: .person, listenPort: 1))
        #expect(throws: WireError.self) { try SessionCodec.decode(SessionCodec.encode(longName)) }
        let bigEntry = SessionMessage.entries([[UInt8](repeating: 0, count: Limits.maxEntryBytes + 1)])
        #expect(throws: WireError.self) { try SessionCodec.decode(SessionCodec.encode(bigEntry)) }
        var want = Confab_V1_SessionMessage()
        want.want.conversationID = Data(Self.conversation.bytes)
        want.want.author = Data(Self.alice.publicKey.bytes)
        want.want.after = Limits.maxSeq + 1
        #expect(throws: WireError.self) { try SessionCodec.decode(try want.serializedBytes() as [UInt8]) }
    }

    /// The bytes Protocol.md §10.2 gives, for another implementation to check against.
    @Test func typingIsKindNineWithItsIdAndFlag() throws {
        let bytes = SessionCodec.encode(.typing(.init(conversation: Self.conversation, active: true)))
        #expect(bytes == [0x4A, 0x14, 0x0A, 0x10] + [UInt8](repeating: 7, count: 16) + [0x10, 0x01])
        // Stopped is the default value, so the flag is not on the wire at all.
        let stopped = SessionCodec.encode(.typing(.init(conversation: Self.conversation, active: false)))
        #expect(stopped == [0x4A, 0x12, 0x0A, 0x10] + [UInt8](repeating: 7, count: 16))
    }

    @Test func aTypingMessageWithoutA16ByteIdIsASessionError() throws {
        for id in [Data(), Data(repeating: 7, count: 15), Data(repeating: 7, count: 17)] {
            var typing = Confab_V1_SessionMessage()
            typing.typing.conversationID = id
            typing.typing.active = true
            #expect(throws: WireError.self) { try SessionCodec.decode(try typing.serializedBytes() as [UInt8]) }
        }
    }

    @Test func fileMessageLimitsAreEnforced() throws {
        func rejected(_ message: SessionMessage) -> Bool {
            (try? SessionCodec.decode(SessionCodec.encode(message))) == nil
        }
        #expect(rejected(.fileWant(.init(file: Self.file, chunks: Array(0...SessionCodec.maxChunksPerWant)))))
        #expect(!rejected(.fileWant(.init(file: Self.file, chunks: Array(0..<SessionCodec.maxChunksPerWant)))))
        #expect(rejected(.fileWant(.init(file: Self.file, chunks: [FileLayout.maxChunks]))))
        #expect(rejected(.fileManifest(file: Self.file, manifest: [UInt8](repeating: 0, count: 33))))
        #expect(rejected(.fileManifest(file: Self.file, manifest: [UInt8](repeating: 0, count: 32 * 16385))))
        let largest = FileLayout.maxChunkSize + FileLayout.tagLength
        #expect(!rejected(.fileChunk(file: Self.file, index: 0, data: [UInt8](repeating: 0, count: largest))))
        #expect(rejected(.fileChunk(file: Self.file, index: 0, data: [UInt8](repeating: 0, count: largest + 1))))
        #expect(rejected(.fileChunk(file: Self.file, index: FileLayout.maxChunks, data: [])))
        #expect(rejected(.fileHave(.init(file: Self.file, manifest: true, chunks: [UInt8](repeating: 0, count: 2049)))))
        var shortID = Confab_V1_SessionMessage()
        shortID.fileHave.fileID = Data(repeating: 1, count: 31)
        #expect(throws: WireError.self) { try SessionCodec.decode(try shortID.serializedBytes() as [UInt8]) }
    }

    @Test func entriesAreSplitByCountAndBySize() throws {
        let small = (0..<600).map { [UInt8](repeating: UInt8($0 % 256), count: $0 % 7) }
        func entries(_ message: SessionMessage) -> [[UInt8]] {
            guard case .entries(let entries) = message else { return [] }
            return entries
        }
        let byCount = SessionCodec.entriesMessages(small, maxCount: 256)
        #expect(byCount.map { entries($0).count } == [256, 256, 88])
        // Entries at the entry limit: 15 fit in 1 MiB, never 16.
        let large = (0..<40).map { [UInt8](repeating: UInt8($0), count: Limits.maxEntryBytes) }
        let bySize = SessionCodec.entriesMessages(large)
        #expect(bySize.map { entries($0).count } == [15, 15, 10])
        for message in bySize {
            #expect(SessionCodec.encode(message).count <= SessionCodec.maxMessageBytes)
            #expect(try SessionCodec.decode(SessionCodec.encode(message)) == message)
        }
        #expect(bySize.flatMap(entries) == large)
        #expect(SessionCodec.entriesMessages([]).isEmpty)
    }

    @Test func clocksAreSplitByCountAndBySize() throws {
        func count(_ message: SessionMessage) -> Int {
            guard case .clocks(let clocks) = message else { return -1 }
            return clocks.count
        }
        func conversation(_ index: Int) -> ConversationID {
            ConversationID(bytes: (0..<16).map { UInt8(truncatingIfNeeded: index >> ($0 % 4 * 8)) })!
        }
        #expect(SessionCodec.clocksMessages([]) == [.clocks([])])
        let narrow = (0..<5000).map {
            SessionMessage.ConversationClock(conversation: conversation($0), clock: VectorClock())
        }
        #expect(SessionCodec.clocksMessages(narrow).map(count) == [4096, 904])
        // 64 authors at the highest seq: about 2.9 KB per conversation, 361 per MiB.
        let authors = (0..<64).map { NodeID(bytes: [UInt8](repeating: UInt8($0), count: 32))! }
        let widest = VectorClock(Dictionary(uniqueKeysWithValues: authors.map { ($0, Limits.maxSeq) }))
        let wide = (0..<1000).map { SessionMessage.ConversationClock(conversation: conversation($0), clock: widest) }
        let messages = SessionCodec.clocksMessages(wide)
        #expect(messages.count == 3)
        #expect(messages.map(count).reduce(0, +) == 1000)
        for message in messages {
            #expect(SessionCodec.encode(message).count <= SessionCodec.maxMessageBytes)
            #expect(try SessionCodec.decode(SessionCodec.encode(message)) == message)
        }
    }

    /// Random bytes, and valid messages with a few bytes changed, from a fixed seed (a failure
    /// names it and the input, so it replays): as a session message each is refused as
    /// malformed, or decodes to a message that encodes back to itself, or is a message of a
    /// kind this version does not know (nil, which the session skips). As a beacon or an
    /// entry each is refused: nothing random carries a signature that verifies.
    @Test func garbageIsRefusedOrDecodesToWhatItSays() throws {
        let seed: UInt64 = 0xC0DE_CAFE
        let shown = "seed 0x" + String(seed, radix: 16)
        var generator = SplitMix64(seed: seed)
        var inputs = (0..<300).map { generator.bytes($0) }
        // Garbage that gets past the first checks.
        for sample in Self.samples {
            let encoded = SessionCodec.encode(sample)
            for _ in 0..<20 {
                var bytes = encoded
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    bytes[Int.random(in: bytes.indices, using: &generator)] = UInt8.random(
                        in: .min ... .max, using: &generator)
                }
                inputs.append(bytes)
            }
        }
        var outcomes = (refused: 0, decoded: 0, unknown: 0)
        for (index, original) in inputs.enumerated() {
            var bytes = original
            let input = Comment(rawValue: "\(shown), input \(index): \(Hex.encode(bytes))")
            let parsed = try? Confab_V1_SessionMessage(serializedBytes: bytes, options: EntryCodec.decodingOptions)
            switch Result(catching: { () throws(WireError) in try SessionCodec.decode(bytes) }) {
            case .failure(let error):
                outcomes.refused += 1
                if parsed == nil {
                    #expect(error == .malformed("session message"), input)
                } else {
                    // Parsed, but a field is out of its range: refused for its shape.
                    #expect(error.category == .malformed || error.category == .tooLarge, "\(error); \(input)")
                }
            case .success(let message?):
                outcomes.decoded += 1
                #expect(try SessionCodec.decode(SessionCodec.encode(message)) == message, input)
            case .success(nil):
                outcomes.unknown += 1
                #expect(parsed != nil && parsed?.kind == nil, input)
            }

            #expect(throws: WireError.self, input) { try EntryCodec.decode(bytes) }
            let signed = BeaconCodec.magic + bytes
            guard case .invalid(let error) = BeaconCodec.inspect(signed, networkKey: .default) else {
                Issue.record("garbage after the beacon magic was taken for a beacon; \(input)")
                continue
            }
            #expect(error.category == .malformed || error.category == .badSignature, "\(error); \(input)")
            #expect((try? BeaconCodec.decode(signed, networkKey: .default)) == nil, input)
            // Without the magic, refused before anything is parsed.
            if bytes.starts(with: BeaconCodec.magic) { bytes[0] ^= 0xff }
            #expect(throws: WireError.malformed("beacon magic"), input) {
                try BeaconCodec.decode(bytes, networkKey: .default)
            }
        }
        // Each of the three outcomes was reached, so each branch above was checked.
        #expect(outcomes.refused > 0 && outcomes.decoded > 0 && outcomes.unknown > 0, "\(shown): \(outcomes)")
    }

    @Test func beaconRoundTripAndNetworkSeparation() throws {
        let beacon = Beacon(node: NodeID(Self.alice.publicKey), tcpPort: 7461, role: .person, timestamp: 123)
        let datagram = BeaconCodec.encode(beacon, signedBy: Self.alice, networkKey: .default)
        #expect(datagram.count < BeaconCodec.maxDatagramBytes)
        #expect(try BeaconCodec.decode(datagram, networkKey: .default) == beacon)
        // Another network's beacon is not an error, just not ours.
        #expect(try BeaconCodec.decode(datagram, networkKey: .random()) == nil)
    }

    @Test func tamperedBeaconIsRejected() throws {
        let beacon = Beacon(node: NodeID(Self.alice.publicKey), tcpPort: 7461, role: .relay, timestamp: 5)
        let datagram = BeaconCodec.encode(beacon, signedBy: Self.alice, networkKey: .default)
        for index in BeaconCodec.magic.count..<datagram.count {
            var copy = datagram
            copy[index] ^= 0x01
            if let decoded = try? BeaconCodec.decode(copy, networkKey: .default) {
                // Only a flip outside the signed content (protobuf framing that decodes the
                // same) may pass, and then it must say exactly the same.
                #expect(decoded == beacon)
            }
        }
        #expect(throws: WireError.self) {
            try BeaconCodec.decode(Array("CFB0".utf8) + datagram.dropFirst(4), networkKey: .default)
        }
    }

    @Test func networkKeyParsing() throws {
        let key = NetworkKey.random()
        #expect(NetworkKey(text: key.hex) == key)
        #expect(NetworkKey(text: key.base64) == key)
        #expect(NetworkKey(text: "abcd") == nil)
        #expect(NetworkKey.default.hex == "7d9d11d8039bfa6fb247df175226cdad01cf77c81e048401007e146213caa68f")
        #expect(NetworkKey.default.tag != key.tag)
        #expect(NetworkKey.default.tag.count == 8)
    }
}

extension SessionMessage: CustomTestStringConvertible {
    public var testDescription: String { "\(self)".prefix(60).description }
}

extension SessionCodecTests {
    /// A long reason with multi-byte characters is cut the same way on both sides, so a
    /// decoded Bye re-encodes to itself (the fuzzer checks this for every message).
    @Test func longByeReasonRoundTrips() throws {
        let reason = String(repeating: "é", count: 300)
        let decoded = try #require(try SessionCodec.decode(SessionCodec.encode(.bye(ByeReason(reason)))))
        #expect(try SessionCodec.decode(SessionCodec.encode(decoded)) == decoded)
        // 256 bytes of UTF-8: 128 two-byte characters.
        #expect(decoded == .bye(ByeReason(String(repeating: "é", count: 128))))
    }

    /// Protocol.md §10.7: a reason is cut to 256 bytes of UTF-8, sent or received, at a
    /// character boundary; one character of thousands of combining marks (a single
    /// grapheme cluster) is cut between its scalars, never inside one.
    @Test func byeReasonsAreCutAt256BytesOfUTF8() throws {
        let oneGrapheme = "a" + String(repeating: "\u{301}", count: 5000)
        #expect(oneGrapheme.count == 1)
        let cut = SessionCodec.byeReason(oneGrapheme)
        #expect(cut.utf8.count <= 256 && cut.utf8.count >= 255)
        #expect(cut.unicodeScalars.first == "a")
        #expect(SessionCodec.encode(.bye(ByeReason(oneGrapheme))).count < 300)
        // A character that would straddle the limit is left out whole.
        let straddling = String(repeating: "x", count: 255) + "é" + "tail"
        #expect(SessionCodec.byeReason(straddling) == String(repeating: "x", count: 255))
        #expect(SessionCodec.byeReason(String(repeating: "x", count: 256)).utf8.count == 256)
        // What a peer sends is cut the same way when it arrives.
        var wire = Confab_V1_SessionMessage()
        var bye = Confab_V1_Bye()
        bye.reason = oneGrapheme
        wire.bye = bye
        let received = try #require(try SessionCodec.decode(try wire.serializedBytes() as [UInt8]))
        #expect(received == .bye(ByeReason(cut)))
    }
}
