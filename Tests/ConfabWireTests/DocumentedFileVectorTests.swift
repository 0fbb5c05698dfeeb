import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf
import Testing

@testable import ConfabWire

/// The vectors of Protocol.md §16 for what is sealed or derived beside entries, read out of
/// the document and checked against the code: file content (§17.1: chunk 1's ciphertext,
/// both chunk names, the file id, an empty file's id), a create's sealed names (§4.8.6) and
/// a shared history (§4.8.5). They were first computed with PyNaCl and hashlib from the
/// text alone.
@Suite struct DocumentedFileVectorTests {
    @Test func aTwoChunkFileAndAnEmptyOne() throws {
        let key = SecureBytes([UInt8](repeating: 0x44, count: 32))
        let plaintext = (0..<16_389).map { UInt8($0 % 251) }
        let layout = try #require(FileLayout(size: UInt64(plaintext.count), chunkSize: 16_384))
        #expect(layout.chunkCount == 2)
        let chunks = try (0..<layout.chunkCount).map { index in
            let start = Int(layout.plainOffset(of: index))
            return try FileCipher.encryptChunk(
                plaintext[start..<start + layout.plainLength(of: index)], index: index, layout: layout, key: key)
        }
        #expect(chunks[0].count == 16_400)
        #expect(chunks[1] == (try ProtocolDocument.vector("file c_1")))
        #expect(FileCipher.chunkName(chunks[0]) == (try ProtocolDocument.vector("file h_0")))
        #expect(FileCipher.chunkName(chunks[1]) == (try ProtocolDocument.vector("file h_1")))
        let manifest = chunks.flatMap { FileCipher.chunkName($0) }
        #expect(FileCipher.fileID(layout: layout, manifest: manifest).bytes == (try ProtocolDocument.vector("file id")))
        // And back: the documented chunk opens to the plaintext's last five bytes.
        #expect(
            try FileCipher.decryptChunk(try ProtocolDocument.vector("file c_1"), index: 1, layout: layout, key: key)
                == Array(plaintext.suffix(5)))

        let empty = try #require(FileLayout(size: 0, chunkSize: 16_384))
        #expect(empty.chunkCount == 0)
        #expect(FileCipher.fileID(layout: empty, manifest: []).bytes == (try ProtocolDocument.vector("empty file id")))
    }

    /// A create's sealed names (issue 34, point 3): the additional data is the create's
    /// position, and the documented bytes open to the names, and only there.
    @Test func aCreatesSealedNames() throws {
        let conversationBytes = try #require(Hex.decode("1fdc2412de905f73dd429f8f5ca8c25f"))
        let conversation = try #require(ConversationID(bytes: conversationBytes))
        let creator = NodeID(try SigningKeyPair(seed: [UInt8](repeating: 0xA1, count: 32)).publicKey)
        let member = NodeID(try SigningKeyPair(seed: [UInt8](repeating: 0xB2, count: 32)).publicKey)
        let key = SecureBytes([UInt8](repeating: 0x42, count: 32))
        var position = conversation.bytes + creator.bytes
        withUnsafeBytes(of: UInt64(1).bigEndian) { position.append(contentsOf: $0) }
        #expect(EntryDomain.names + position == (try ProtocolDocument.vector("names ad")))
        let sealed = try ProtocolDocument.vector("names sealed")
        let again = try AEAD.seal(
            try ProtocolDocument.vector("names plaintext"), key: key,
            additionalData: try ProtocolDocument.vector("names ad"),
            nonce: [UInt8](repeating: 0x24, count: 24))
        #expect(again == sealed)
        let names = MembershipCipher.openNames(sealed, key: key, conversationID: conversation, author: creator, seq: 1)
        #expect(names.map(\.key) == [creator, member])
        #expect(names.map(\.name) == ["Alice", "Bob"])
        // Another position (seq 2) does not open them.
        #expect(
            MembershipCipher.openNames(sealed, key: key, conversationID: conversation, author: creator, seq: 2).isEmpty)
    }

    /// Shared history (issue 34, point 7): the documented sealed bytes open, with the
    /// added member's key only, to the documented EpochKeys: the create's key.
    @Test func aSharedHistoryOpensToTheCreatesKey() throws {
        let creator = NodeID(try SigningKeyPair(seed: [UInt8](repeating: 0xA1, count: 32)).publicKey)
        let third = try SigningKeyPair(seed: [UInt8](repeating: 0xC3, count: 32))
        let sealed = try ProtocolDocument.vector("history sealed")
        let opened = MembershipCipher.openHistory(sealed, with: third)
        #expect(opened.map(\.epoch) == [EntryRef(author: creator, seq: 1)])
        #expect(opened.first?.key.unsafeCopy == [UInt8](repeating: 0x42, count: 32))
        var plaintext = Confab_V1_EpochKeys()
        var key = Confab_V1_EpochKey()
        key.author = Data(creator.bytes)
        key.seq = 1
        key.key = Data(repeating: 0x42, count: 32)
        plaintext.keys = [key]
        #expect(try plaintext.serializedBytes() == (try ProtocolDocument.vector("history plaintext")))
        // Nobody else opens it.
        let member = try SigningKeyPair(seed: [UInt8](repeating: 0xB2, count: 32))
        #expect(MembershipCipher.openHistory(sealed, with: member).isEmpty)
    }
}
