import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// The vectors of Protocol.md §16 (`Fixtures/confab-vectors.json`): a conversation id and key
/// commitment, entries of every kind (an unsigned run among them) and a beacon, with every
/// input. The test checks the file against this implementation the way another one would:
/// decode, verify, derive and decrypt. `CONFAB_WRITE_VECTORS=PATH swift test --filter
/// ProtocolVectorTests` writes a fresh file (the sealed parts use random nonces, so it
/// differs each time but checks the same way).
@Suite struct ProtocolVectorTests {
    struct Vectors: Codable {
        struct Conversation: Codable {
            var creatorSeed: String
            var creatorKey: String
            var nonce: String
            var conversationID: String
            var conversationKey: String
            var keyCommitment: String
        }
        struct EntryVector: Codable {
            var description: String
            var encoded: String
            var content: String
            var signature: String
            var hash: String
            var seq: UInt64
            var timestampMs: Int64
            var clock: [String: UInt64]
            var plaintext: String?
            /// The seq of the message an edit or an unsend acts on.
            var target: UInt64?
            /// The message a message replies to, as `author-key/seq`.
            var replyTo: String?
            /// A message's mentions.
            var mentions: [MentionVector]?
            /// What a react entry's plaintext holds.
            var reaction: ReactionVector?
            /// A members entry's new epoch key (fixed here, random in use) and its commitment
            /// (Protocol.md §4.8.1); `plaintext` is then the sealed names, joined by ", ".
            var epochKey: String?
            var epochCommitment: String?
            /// For an entry left unsigned (64 zero bytes, §4.3): the seq of its author's
            /// signed entry above it whose signature covers it through the hash chain.
            var authenticatedBy: UInt64?
        }
        struct MentionVector: Codable {
            var key: String
            var start: Int
            var length: Int
        }
        struct ReactionVector: Codable {
            var target: String
            var emoji: String
            var remove: Bool
        }
        struct BeaconVector: Codable {
            var nodeSeed: String
            var networkKey: String
            var networkTag: String
            var tcpPort: UInt16
            var role: String
            var timestampMs: Int64
            var version: UInt32
            var datagram: String
        }
        var conversation: Conversation
        var entries: [EntryVector]
        var beacon: BeaconVector
    }

    static let creator = try! SigningKeyPair(seed: [UInt8](repeating: 0xA1, count: 32))
    static let member = try! SigningKeyPair(seed: [UInt8](repeating: 0xB2, count: 32))
    static let nonce = [UInt8](repeating: 0x10, count: 16)
    static let key = SecureBytes([UInt8](repeating: 0x42, count: 32))
    static let third = try! SigningKeyPair(seed: [UInt8](repeating: 0xC3, count: 32))
    static let epochKey = SecureBytes([UInt8](repeating: 0x43, count: 32))
    static let rekeyEpochKey = SecureBytes([UInt8](repeating: 0x45, count: 32))

    @Test func theVectorsHold() throws {
        if let path = ProcessInfo.processInfo.environment["CONFAB_WRITE_VECTORS"] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(try Self.make()).write(to: URL(fileURLWithPath: path))
        }
        let url = try #require(
            Bundle.module.url(forResource: "confab-vectors", withExtension: "json", subdirectory: "Fixtures"))
        let vectors = try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))

        let c = vectors.conversation
        let creator = try SigningKeyPair(seed: try hex(c.creatorSeed))
        #expect(creator.publicKey.bytes.hexString == c.creatorKey)
        let id = ConversationGenesis.conversationID(creator: NodeID(creator.publicKey), nonce: try hex(c.nonce))
        #expect(id.hex == c.conversationID)
        let key = SecureBytes(try hex(c.conversationKey))
        #expect(ConversationGenesis.keyCommitment(key, conversationID: id).hexString == c.keyCommitment)

        let decoded = try vectors.entries.map { try EntryCodec.decodeUnverified(try hex($0.encoded)) }
        for (vector, unverified) in zip(vectors.entries, decoded) {
            let entry: Entry
            if let top = vector.authenticatedBy {
                // Its own signature must not verify: only the chain from `top` vouches for it.
                #expect(vector.signature == String(repeating: "00", count: 64))
                #expect(throws: WireError.self) { try EntryCodec.decode(try hex(vector.encoded)) }
                #expect(!EntryCodec.hasValidSignature(unverified))
                var above = try #require(decoded.first { $0.author == unverified.author && $0.seq == top })
                #expect(EntryCodec.hasValidSignature(above))
                while above.seq > unverified.seq + 1 {
                    above = try #require(decoded.first { $0.author == above.author && $0.seq == above.seq - 1 })
                }
                #expect(above.previous == unverified.hash, "\(vector.description)")
                entry = unverified
            } else {
                entry = try EntryCodec.decode(try hex(vector.encoded))
            }
            #expect(entry.content.hexString == vector.content, "\(vector.description)")
            #expect(entry.signature.hexString == vector.signature)
            #expect(entry.hash.bytes.hexString == vector.hash)
            #expect(entry.conversationID == id)
            #expect(entry.seq == vector.seq && entry.timestamp == vector.timestampMs)
            #expect(
                Dictionary(uniqueKeysWithValues: entry.clock.sortedEntries.map { ($0.author.hex, $0.seq) })
                    == vector.clock)
            switch entry.body {
            case .create(let create):
                #expect(create.nonce.hexString == c.nonce && create.keyCommitment.hexString == c.keyCommitment)
                #expect(
                    try ConversationCipher.openTitle(create.sealedTitle, key: key, conversationID: id)
                        == vector.plaintext)
            case .message(let sealed):
                let content = try ConversationCipher.openMessageContent(
                    sealed, key: key, conversationID: id, author: entry.author, seq: entry.seq)
                #expect(content.text == vector.plaintext)
                #expect(content.replyTo.map { "\($0.author.hex)/\($0.seq)" } == vector.replyTo)
                #expect(
                    content.mentions.map { "\($0.person.hex) \($0.start) \($0.length)" }
                        == (vector.mentions ?? []).map { "\($0.key) \($0.start) \($0.length)" })
            case .edit(let target, let sealed):
                #expect(target == vector.target)
                let text = try ConversationCipher.openMessage(
                    sealed, key: key, conversationID: id, author: entry.author, seq: entry.seq)
                #expect(text == vector.plaintext)
            case .unsend(let target):
                #expect(target == vector.target)
                #expect(vector.plaintext == nil)
            case .react(let sealed):
                let reaction = try ConversationCipher.openReaction(
                    sealed, key: key, conversationID: id, author: entry.author, seq: entry.seq)
                let expected = try #require(vector.reaction)
                #expect("\(reaction.target.author.hex)/\(reaction.target.seq)" == expected.target)
                #expect(reaction.emoji == expected.emoji && reaction.removed == expected.remove)
            case .members(let members):
                let epochKey = SecureBytes(try hex(try #require(vector.epochKey)))
                let commitment = MembershipCipher.epochCommitment(
                    epochKey, conversationID: id, author: entry.author, seq: entry.seq)
                #expect(commitment.hexString == vector.epochCommitment)
                #expect(members.keyCommitment == commitment)
                #expect(
                    members.keys.map(\.id) == [
                        NodeID(Self.creator.publicKey), NodeID(Self.member.publicKey), NodeID(Self.third.publicKey),
                    ])
                #expect(members.remove.isEmpty)
                #expect(members.add == (entry.seq == 4 ? [NodeID(Self.third.publicKey)] : []), "an add, then a rekey")
                let names = MembershipCipher.openNames(
                    members.sealedNames, key: epochKey, conversationID: id, author: entry.author, seq: entry.seq)
                #expect(names.map(\.name).joined(separator: ", ") == vector.plaintext)
            default:
                Issue.record("unexpected kind in \(vector.description)")
            }
        }

        let b = vectors.beacon
        let node = try SigningKeyPair(seed: try hex(b.nodeSeed))
        let networkKey = try #require(NetworkKey(bytes: try hex(b.networkKey)))
        #expect(networkKey.tag.hexString == b.networkTag)
        let beacon = Beacon(
            node: NodeID(node.publicKey), tcpPort: b.tcpPort, role: b.role == "relay" ? .relay : .person,
            timestamp: b.timestampMs, version: b.version)
        #expect(BeaconCodec.encode(beacon, signedBy: node, networkKey: networkKey).hexString == b.datagram)
        #expect(try BeaconCodec.decode(try hex(b.datagram), networkKey: networkKey) == beacon)
    }

    static func make() throws -> Vectors {
        let creatorID = NodeID(creator.publicKey)
        let memberID = NodeID(member.publicKey)
        let id = ConversationGenesis.conversationID(creator: creatorID, nonce: nonce)
        let commitment = ConversationGenesis.keyCommitment(key, conversationID: id)
        let create = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 1_800_000_000_000, clock: VectorClock(),
                body: .create(
                    CreateBody(
                        participants: try [creatorID, memberID].map {
                            .init(id: $0, sealedKey: try ConversationCipher.sealKey(key, to: $0))
                        },
                        sealedTitle: try ConversationCipher.sealTitle("Weekend plans", key: key, conversationID: id),
                        nonce: nonce, keyCommitment: commitment))),
            with: creator)
        let message = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 1_800_000_060_000,
                clock: VectorClock([creatorID: 1]),
                body: .message(
                    sealed: try ConversationCipher.sealMessage(
                        "Hike on Saturday?", key: key, conversationID: id, author: memberID, seq: 1))),
            with: member)
        let edit = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 2, previous: message.hash, timestamp: 1_800_000_120_000,
                clock: VectorClock([creatorID: 1, memberID: 1]),
                body: .edit(
                    target: 1,
                    sealed: try ConversationCipher.sealMessage(
                        "Hike on Sunday?", key: key, conversationID: id, author: memberID, seq: 2))),
            with: member)
        let unsend = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 3, previous: edit.hash, timestamp: 1_800_000_180_000,
                clock: VectorClock([creatorID: 1, memberID: 2]), body: .unsend(target: 1)),
            with: member)
        let replyContent = MessageContent(
            text: "@member count me in", replyTo: MessageRef(author: memberID, seq: 1),
            mentions: [Mention(person: memberID, start: 0, length: 7)])
        let reply = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 2, previous: create.hash, timestamp: 1_800_000_090_000,
                clock: VectorClock([creatorID: 1, memberID: 1]),
                body: .message(
                    sealed: try ConversationCipher.sealMessage(
                        replyContent, key: key, conversationID: id, author: creatorID, seq: 2))),
            with: creator)
        let reactionContent = ReactionContent(target: MessageRef(author: memberID, seq: 1), emoji: "👍", removed: false)
        let react = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 3, previous: reply.hash, timestamp: 1_800_000_100_000,
                clock: VectorClock([creatorID: 2, memberID: 1]),
                body: .react(
                    sealed: try ConversationCipher.sealReaction(
                        reactionContent, key: key, conversationID: id, author: creatorID, seq: 3))),
            with: creator)
        let run = try unsignedRun(after: unsend)
        let thirdID = NodeID(third.publicKey)
        let add = try membersEntry(
            after: react, holding: VectorClock([creatorID: 3, memberID: 3]), add: [thirdID], epochKey: epochKey,
            names: [(creatorID, "Alice"), (thirdID, "Carol")], timestamp: 1_800_000_240_000,
            description: "the creator adds a third member (seed c3…c3): a new epoch, with names")
        // A rekey: a members entry that adds and removes nobody, and starts an epoch.
        let rekey = try membersEntry(
            after: add.0, holding: VectorClock([creatorID: 4, memberID: 3]), add: [], epochKey: rekeyEpochKey,
            names: [(creatorID, "Alice")], timestamp: 1_800_000_300_000,
            description: "the creator rekeys: a new epoch for the same three members, adding and removing nobody")
        return Vectors(
            conversation: .init(
                creatorSeed: [UInt8](repeating: 0xA1, count: 32).hexString, creatorKey: creatorID.hex,
                nonce: nonce.hexString, conversationID: id.hex, conversationKey: key.unsafeCopy.hexString,
                keyCommitment: commitment.hexString),
            entries: [
                vector(create, "the creator's create entry: two participants, a sealed title", "Weekend plans"),
                vector(message, "the member's first message, after it held the create entry", "Hike on Saturday?"),
                vector(edit, "the member's edit of its message (seq 1)", "Hike on Sunday?"),
                vector(unsend, "the member's deletion for everyone of its message (seq 1)", nil),
                run[0], run[1],
                {
                    var vector = vector(
                        reply, "the creator's reply to the member's message, mentioning the member", replyContent.text)
                    vector.replyTo = "\(memberID.hex)/1"
                    vector.mentions = [.init(key: memberID.hex, start: 0, length: 7)]
                    return vector
                }(),
                {
                    var vector = vector(react, "the creator's reaction 👍 to the member's message", nil)
                    vector.reaction = .init(target: "\(memberID.hex)/1", emoji: "👍", remove: false)
                    return vector
                }(),
                add.1, rekey.1,
            ],
            beacon: beaconVector())
    }

    /// Two messages the member wrote in one commit after `previous` (§4.3): the first left
    /// unsigned, the second signed, naming the first's hash.
    static func unsignedRun(after previous: Entry) throws -> [Vectors.EntryVector] {
        let creatorID = NodeID(creator.publicKey)
        let memberID = NodeID(member.publicKey)
        let id = previous.conversationID
        var below = previous
        var entries: [Entry] = []
        for (offset, text) in ["Leaving at 8", "Bring water"].enumerated() {
            let seq = previous.seq + 1 + UInt64(offset)
            below = EntryCodec.sign(
                EntryDraft(
                    conversationID: id, seq: seq, previous: below.hash,
                    timestamp: 1_800_000_200_000 + Int64(offset),
                    clock: VectorClock([creatorID: 1, memberID: seq - 1]),
                    body: .message(
                        sealed: try ConversationCipher.sealMessage(
                            text, key: key, conversationID: id, author: memberID, seq: seq))),
                with: member, signed: offset == 1)
            entries.append(below)
        }
        var first = vector(
            entries[0], "the member's message written with the next in one commit: unsigned (64 zero bytes)",
            "Leaving at 8")
        first.authenticatedBy = entries[1].seq
        return [
            first,
            vector(entries[1], "the member's next message, signed, naming the unsigned one's hash", "Bring water"),
        ]
    }

    /// A members entry of the creator after `previous`, holding `clock` of the others:
    /// adding `add`, its epoch key `epochKey` sealed to the creator, the member and the
    /// third key, with `names` sealed under it.
    static func membersEntry(
        after previous: Entry, holding clock: VectorClock, add: [NodeID], epochKey: SecureBytes,
        names: [(key: NodeID, name: String)], timestamp: Int64, description: String
    ) throws -> (Entry, Vectors.EntryVector) {
        let creatorID = NodeID(creator.publicKey)
        let id = previous.conversationID
        let seq = previous.seq + 1
        let members = [creatorID, NodeID(member.publicKey), NodeID(third.publicKey)]
        let commitment = MembershipCipher.epochCommitment(epochKey, conversationID: id, author: creatorID, seq: seq)
        let entry = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: seq, previous: previous.hash, timestamp: timestamp, clock: clock,
                body: .members(
                    MembersBody(
                        add: add,
                        keys: try members.map {
                            .init(id: $0, sealedKey: try ConversationCipher.sealKey(epochKey, to: $0))
                        },
                        keyCommitment: commitment,
                        sealedNames: try MembershipCipher.sealNames(
                            names, key: epochKey, conversationID: id, author: creatorID, seq: seq)))),
            with: creator)
        var result = vector(entry, description, names.map(\.name).joined(separator: ", "))
        result.epochKey = epochKey.unsafeCopy.hexString
        result.epochCommitment = commitment.hexString
        return (entry, result)
    }

    static func vector(_ entry: Entry, _ description: String, _ plaintext: String?) -> Vectors.EntryVector {
        Vectors.EntryVector(
            description: description, encoded: EntryCodec.encode(entry).hexString,
            content: entry.content.hexString, signature: entry.signature.hexString,
            hash: entry.hash.bytes.hexString, seq: entry.seq, timestampMs: entry.timestamp,
            clock: Dictionary(uniqueKeysWithValues: entry.clock.sortedEntries.map { ($0.author.hex, $0.seq) }),
            plaintext: plaintext, target: entry.actionTarget)
    }

    static func beaconVector() -> Vectors.BeaconVector {
        let beacon = Beacon(node: NodeID(creator.publicKey), tcpPort: 7461, role: .person, timestamp: 1_800_000_000_123)
        return .init(
            nodeSeed: [UInt8](repeating: 0xA1, count: 32).hexString, networkKey: NetworkKey.default.bytes.hexString,
            networkTag: NetworkKey.default.tag.hexString, tcpPort: 7461, role: "person",
            timestampMs: 1_800_000_000_123, version: beacon.version,
            datagram: BeaconCodec.encode(beacon, signedBy: creator, networkKey: .default).hexString)
    }
}

private func hex(_ text: String) throws -> [UInt8] {
    guard let bytes = Hex.decode(text) else { throw CryptoError.invalidLength("hex", expected: 0, actual: text.count) }
    return bytes
}

extension Array where Element == UInt8 {
    fileprivate var hexString: String { Hex.encode(self) }
}
