import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// An entry written without a signature of its own (Protocol.md §4.3): 64 zero bytes, which
/// verify for nobody, and which a sender tells apart without checking anything.
@Suite struct UnsignedEntryTests {
    private func message(_ text: String, signed: Bool) throws -> Entry {
        let (key, create) = try makeCreate(title: "")
        let sealed = try ConversationCipher.sealMessage(
            text, key: key, conversationID: conversation, author: Keys.alice.id, seq: 2)
        let draft = makeDraft(
            seq: 2, previous: create.hash, clock: VectorClock([Keys.alice.id: 1]), body: .message(sealed: sealed))
        return EntryCodec.sign(draft, with: Keys.alice, signed: signed)
    }

    @Test func anUnsignedEntryVerifiesForNobodyAndDecodesAsAnyOther() throws {
        let entry = try message("unsigned", signed: false)
        #expect(entry.signature == [UInt8](repeating: 0, count: 64))
        #expect(EntryCodec.isUnsigned(entry))
        #expect(!EntryCodec.hasValidSignature(entry))
        #expect(throws: WireError.self) { try EntryCodec.decode(EntryCodec.encode(entry)) }
        #expect(try EntryCodec.decodeUnverified(EntryCodec.encode(entry)) == entry)
    }

    @Test func signingItLaterGivesTheEntryItsAuthorWouldHaveSigned() throws {
        let unsigned = try message("later", signed: false)
        let signed = EntryCodec.signing(unsigned, with: Keys.alice)
        #expect(signed.content == unsigned.content && signed.hash == unsigned.hash)
        #expect(!EntryCodec.isUnsigned(signed))
        #expect(try EntryCodec.decode(EntryCodec.encode(signed)) == signed)
    }

    @Test func aSenderTellsUnsignedFromSignedWithoutChecking() throws {
        let unsigned = try message("a", signed: false)
        let signed = EntryCodec.signing(unsigned, with: Keys.alice)
        #expect(EntryCodec.peekSignedHash(EntryCodec.encode(unsigned)) == nil)
        #expect(EntryCodec.peekSignedHash(EntryCodec.encode(signed)) == signed.hash)
        // A damaged signature is a signature carried: only checking it finds it bad.
        var damaged = EntryCodec.encode(signed)
        damaged[damaged.count - 1] ^= 0x01
        #expect(EntryCodec.peekSignedHash(damaged) == signed.hash)
        #expect(EntryCodec.peekSignedHash([0xde, 0xad]) == nil)
    }

    /// The writer sizes runs without encoding each entry twice.
    @Test(arguments: [1, 100, 127, 128, 16_383, 16_384, 30_000])
    func theEncodedSizeIsTheEncodingsLength(textBytes: Int) throws {
        let entry = try message(String(repeating: "x", count: textBytes), signed: false)
        #expect(EntryCodec.encodedSize(of: entry) == EntryCodec.encode(entry).count)
    }
}
