import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// The entry vectors of Protocol.md §16, read out of the document itself and checked as a
/// second implementation would use them: each encoded entry decodes, its content, signature
/// and hash are the document's and the JSON file's, its signature verifies (or it is the
/// one left unsigned, §4.3), and encoding it again gives the same bytes. Every entry of the
/// JSON file is in the document. A stale vector fails here (issue 34: the members vector
/// had drifted to field 21 and another previous hash).
@Suite struct DocumentedEntryVectorTests {
    struct Documented {
        var encoded: [UInt8] = []
        var content: [UInt8] = []
        var signature: [UInt8] = []
        var hash: [UInt8] = []
    }

    /// The entries: each `encoded` with the `content`, `signature` and `hash` after it.
    static func entries() throws -> [Documented] {
        var entries: [Documented] = []
        for (name, bytes) in ProtocolDocument.fields(try ProtocolDocument.vectors()) {
            switch name {
            case "encoded": entries.append(Documented(encoded: bytes))
            case "content": entries[entries.count - 1].content = bytes
            case "signature": entries[entries.count - 1].signature = bytes
            case "hash": entries[entries.count - 1].hash = bytes
            default: continue
            }
        }
        return entries
    }

    @Test func everyDocumentedEntryIsTheBytesItSaysAndTheJSONFilesToo() throws {
        let documented = try Self.entries()
        let url = try #require(
            Bundle.module.url(forResource: "confab-vectors", withExtension: "json", subdirectory: "Fixtures"))
        let fixture = try JSONDecoder().decode(ProtocolVectorTests.Vectors.self, from: Data(contentsOf: url))
        #expect(documented.count == fixture.entries.count)
        for (index, vector) in documented.enumerated() {
            let entry = try EntryCodec.decodeUnverified(vector.encoded)
            #expect(entry.content == vector.content, "entry \(index): content")
            #expect(entry.signature == vector.signature, "entry \(index): signature")
            #expect(entry.hash.bytes == vector.hash, "entry \(index): hash")
            #expect(Hash.blake2b(vector.content, length: 32) == vector.hash, "entry \(index): hash of the content")
            #expect(EntryCodec.hasValidSignature(entry) || EntryCodec.isUnsigned(entry), "entry \(index): signature")
            #expect(EntryCodec.encode(entry) == vector.encoded, "entry \(index): encoded again")
            if index < fixture.entries.count {
                let json = fixture.entries[index]
                #expect(
                    [json.encoded, json.content, json.signature, json.hash]
                        == [vector.encoded, vector.content, vector.signature, vector.hash].map(Hex.encode),
                    "entry \(index): not the JSON file's")
            }
        }
    }

    /// The members entries (§4.8): the add, a members body (field 22) at the creator's seq 4
    /// after its reaction, and the rekey after it, adding and removing nobody; each with
    /// the documented epoch commitment.
    @Test func theMembersEntriesAreWhatTheTextSays() throws {
        let documented = try Self.entries()
        #expect(documented.count >= 3)
        let reaction = try EntryCodec.decode(documented[documented.count - 3].encoded)
        let add = try EntryCodec.decode(documented[documented.count - 2].encoded)
        let rekey = try EntryCodec.decode(documented[documented.count - 1].encoded)
        guard case .members(let added) = add.body, case .members(let rekeyed) = rekey.body else {
            Issue.record("the last two entry vectors are not members entries: \(add.body), \(rekey.body)")
            return
        }
        #expect(add.seq == 4 && rekey.seq == 5)
        #expect(reaction.author == add.author && reaction.seq == 3 && add.previous == reaction.hash)
        // The text names the reaction's hash by its first bytes.
        #expect(try ProtocolDocument.vectors().contains("`" + Hex.encode(Array(reaction.hash.bytes.prefix(4))) + "…`"))
        #expect(rekey.author == add.author && rekey.previous == add.hash)
        #expect(added.add.count == 1 && added.remove.isEmpty)
        #expect(rekeyed.add.isEmpty && rekeyed.remove.isEmpty && rekeyed.keys.count == 3, "a rekey")
        let marker = try #require(documented[documented.count - 2].content.firstRange(of: [0xB2, 0x01]))
        #expect(marker.lowerBound > 0, "field 22, length-delimited")
        let fields = ProtocolDocument.fields(try ProtocolDocument.vectors())
        for (entry, body, name) in [(add, added, "epoch key"), (rekey, rekeyed, "rekey epoch key")] {
            let key = SecureBytes(try #require(fields.first { $0.name == name }?.bytes, "no \(name)"))
            let commitment = MembershipCipher.epochCommitment(
                key, conversationID: entry.conversationID, author: entry.author, seq: entry.seq)
            #expect(body.keyCommitment == commitment, "\(name)")
            #expect(
                try ProtocolDocument.vectors().contains(Hex.encode(commitment)), "\(name)'s commitment in the document")
        }
    }

    /// The conversation id, key commitment and beacon of §16, out of the document: derived
    /// again from the documented inputs, and the beacon decoded back (both ways).
    @Test func theConversationAndTheBeaconAreWhatTheDocumentSays() throws {
        let creator = try SigningKeyPair(seed: try ProtocolDocument.vector("creator seed"))
        #expect(creator.publicKey.bytes == (try ProtocolDocument.vector("creator key")))
        let id = ConversationGenesis.conversationID(
            creator: NodeID(creator.publicKey), nonce: try ProtocolDocument.vector("nonce"))
        #expect(id.bytes == (try ProtocolDocument.vector("conversation_id")))
        let key = SecureBytes(try ProtocolDocument.vector("conversation key"))
        #expect(
            ConversationGenesis.keyCommitment(key, conversationID: id)
                == (try ProtocolDocument.vector("key_commitment")))

        #expect(NetworkKey.default.bytes == (try ProtocolDocument.vector("network key")))
        #expect(NetworkKey.default.tag == (try ProtocolDocument.vector("network tag")))
        let beacon = Beacon(node: NodeID(creator.publicKey), tcpPort: 7461, role: .person, timestamp: 1_800_000_000_123)
        let datagram = try ProtocolDocument.vector("datagram")
        #expect(BeaconCodec.encode(beacon, signedBy: creator, networkKey: .default) == datagram)
        #expect(try BeaconCodec.decode(datagram, networkKey: .default) == beacon)
    }
}
