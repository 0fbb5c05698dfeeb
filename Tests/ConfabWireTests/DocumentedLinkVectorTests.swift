import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// The link vector of Protocol.md §20.10, read out of the document (computed there by
/// Tests/Vectors/link.py): the code's secrets, the offer's key and tag, and the words of a
/// handshake of fixed ephemeral keys. A stale vector, salt, domain or word list fails here.
@Suite struct DocumentedLinkVectorTests {
    static func one(_ name: String) throws -> [UInt8] {
        let values = ProtocolDocument.fields(try ProtocolDocument.devices()).filter { $0.name == name }
        try #require(values.count == 1, "Protocol.md §20 gives \(values.count) values of \(name)")
        return values[0].bytes
    }

    static func documentedWords() throws -> [String] {
        let section = try ProtocolDocument.devices()
        let line = try #require(section.split(separator: "\n").first { $0.hasPrefix("words ") && $0.contains("=") })
        return line.split(separator: "=")[1].split(separator: " ").map(String.init)
    }

    /// The words block after "The word list", in order.
    static func documentedList() throws -> [String] {
        let section = try ProtocolDocument.devices()
        let start = try #require(section.range(of: "The word list"))
        let block = section[start.upperBound...].components(separatedBy: "```")[1]
        return block.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }

    @Test func theCodesSecretsAreTheDocumentedOnes() throws {
        let code = try #require(LinkCode(text: "K7Q2M-9XH4T"))
        let secrets = try LinkSecrets(code: code)
        #expect(secrets.networkKey.bytes == (try Self.one("K_link")))
        #expect(secrets.offerKey.seed.unsafeCopy == (try Self.one("B_seed")))
        #expect(secrets.offer.bytes == (try Self.one("B_pk")))
        #expect(secrets.networkKey.tag == (try Self.one("link_tag")))
    }

    @Test func theWordListIsTheDocumentedOne() throws {
        let documented = try Self.documentedList()
        #expect(documented == LinkWords.list)
        #expect(Set(LinkWords.list).count == 256)
        #expect(LinkWords.list.allSatisfy { (3...8).contains($0.count) && $0.allSatisfy(\.isLowercase) })
    }

    @Test func theWordsOfTheDocumentedHandshake() throws {
        let device = try SigningKeyPair(seed: [UInt8](repeating: 0x72, count: 32))
        #expect(device.publicKey.bytes == (try Self.one("D_new")))
        let clientEphemeral = try Curve25519KeyPair(secretKey: [UInt8](repeating: 0x73, count: 32))
        let serverEphemeral = try Curve25519KeyPair(secretKey: [UInt8](repeating: 0x74, count: 32))
        let ab = try ScalarMult.sharedSecret(
            secretKey: clientEphemeral.secretKey, publicKey: serverEphemeral.publicKey)
        let transcript = Hash.sha256(ab.unsafeCopy)
        #expect(transcript == (try Self.one("H_link")))
        let offer = NodeID(bytes: try Self.one("B_pk"))!
        let words = LinkWords.words(transcriptHash: transcript, client: NodeID(device.publicKey), server: offer)
        #expect(words == (try Self.documentedWords()))
        #expect(
            Array(LinkWords.digest(transcriptHash: transcript, client: NodeID(device.publicKey), server: offer))
                == (try Self.one("words_digest")))
    }
}
