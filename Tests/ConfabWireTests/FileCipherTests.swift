import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf
import Testing

@testable import ConfabWire

/// A file's content encrypted as a sender does (Protocol.md §17.1): chunks, manifest, id.
struct SealedContent {
    let layout: FileLayout
    let key: SecureBytes
    let chunks: [[UInt8]]
    let manifest: [UInt8]
    let fileID: FileID

    init(_ plaintext: [UInt8], chunkSize: UInt64 = 1 << 14, key: SecureBytes = AEAD.generateKey()) throws {
        let layout = FileLayout(size: UInt64(plaintext.count), chunkSize: chunkSize)!
        self.layout = layout
        self.key = key
        chunks = try (0..<layout.chunkCount).map { index in
            let start = Int(layout.plainOffset(of: index))
            return try FileCipher.encryptChunk(
                plaintext[start..<start + layout.plainLength(of: index)], index: index, layout: layout, key: key)
        }
        manifest = chunks.flatMap { FileCipher.chunkName($0) }
        fileID = FileCipher.fileID(layout: layout, manifest: manifest)
    }
}

@Suite("Files: chunks, manifest, file entries")
struct FileCipherTests {
    static let plaintext = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    @Test func chunksRoundTripAndAreNamedByTheirCiphertext() throws {
        let content = try SealedContent(Self.plaintext)
        #expect(content.layout.chunkCount == 3)
        #expect(content.chunks.map(\.count) == [16_400, 16_400, 40_000 - 32_768 + 16])
        var opened: [UInt8] = []
        for (index, chunk) in content.chunks.enumerated() {
            #expect(Array(FileCipher.chunkName(in: content.manifest, index: index)) == FileCipher.chunkName(chunk))
            opened += try FileCipher.decryptChunk(chunk, index: index, layout: content.layout, key: content.key)
        }
        #expect(opened == Self.plaintext)
        // Same key and content: the same chunks and id (what lets a sender send a file twice
        // and have it stored once).
        #expect(try SealedContent(Self.plaintext, key: content.key).fileID == content.fileID)
        #expect(try SealedContent(Self.plaintext).fileID != content.fileID)
    }

    @Test func aChunkOpensOnlyAtItsOwnPlaceInItsOwnFile() throws {
        let content = try SealedContent(Self.plaintext)
        #expect(throws: CryptoError.self) {
            try FileCipher.decryptChunk(content.chunks[0], index: 1, layout: content.layout, key: content.key)
        }
        let longer = FileLayout(size: content.layout.size + 1, chunkSize: 1 << 14)!
        #expect(throws: CryptoError.self) {
            try FileCipher.decryptChunk(content.chunks[0], index: 0, layout: longer, key: content.key)
        }
        var flipped = content.chunks[1]
        flipped[5] ^= 1
        #expect(throws: CryptoError.self) {
            try FileCipher.decryptChunk(flipped, index: 1, layout: content.layout, key: content.key)
        }
    }

    @Test func theFileIDCoversSizeChunkSizeAndEveryName() throws {
        let content = try SealedContent(Self.plaintext)
        var manifest = content.manifest
        manifest[40] ^= 1
        #expect(FileCipher.fileID(layout: content.layout, manifest: manifest) != content.fileID)
        let other = FileLayout(size: content.layout.size - 1, chunkSize: 1 << 14)!
        #expect(FileCipher.fileID(layout: other, manifest: content.manifest) != content.fileID)
        #expect(FileCipher.fileID(layout: FileLayout(size: 0, chunkSize: 1 << 14)!, manifest: []).bytes.count == 32)
    }

    @Test func layoutsOutsideTheLimitsDoNotExist() {
        #expect(FileLayout(size: 1, chunkSize: 1 << 13) == nil)
        #expect(FileLayout(size: 1, chunkSize: 1 << 20) == nil)
        #expect(FileLayout(size: 1, chunkSize: (1 << 14) + 1) == nil)
        #expect(FileLayout(size: (1 << 14) * (1 << 14) + 1, chunkSize: 1 << 14) == nil)
        #expect(FileLayout(size: (1 << 14) * (1 << 14), chunkSize: 1 << 14)?.chunkCount == 1 << 14)
        #expect(FileLayout.forSending(size: 4 << 30)?.chunkSize == 1 << 18)
        #expect(FileLayout.forSending(size: (4 << 30) + 1)?.chunkSize == 1 << 19)
        #expect(FileLayout.forSending(size: FileLayout.maxSize + 1) == nil)
        #expect(FileLayout(size: 0, chunkSize: 1 << 14)?.chunkCount == 0)
    }

    @Test func aFileEntryRoundTripsAndOnlyMembersReadItsDescription() throws {
        let (key, create) = try makeCreate()
        let content = try SealedContent(Self.plaintext)
        let description = FileDescription(
            name: "plan.pdf", folder: "trip/2024", mediaType: "application/pdf", key: content.key.unsafeCopy,
            sha256: Hash.sha256(Self.plaintext), width: 0, height: 0)
        let sealed = try FileCipher.sealDescription(
            description, key: key, conversationID: conversation, author: Keys.alice.id, seq: 2)
        let entry = EntryCodec.sign(
            makeDraft(
                seq: 2, previous: create.hash, clock: VectorClock([Keys.alice.id: 1]),
                body: .file(FileBody(sealed: sealed, layout: content.layout, fileID: content.fileID))),
            with: Keys.alice)
        let decoded = try EntryCodec.decode(EntryCodec.encode(entry))
        #expect(decoded == entry)
        guard case .file(let body) = decoded.body else {
            Issue.record("not a file entry")
            return
        }
        #expect(body.layout == content.layout && body.fileID == content.fileID)
        #expect(
            try FileCipher.openDescription(
                body.sealed, key: key, conversationID: conversation, author: Keys.alice.id, seq: 2) == description)
        // Bound to its position: it does not open as another seq's.
        #expect(throws: CryptoError.self) {
            try FileCipher.openDescription(
                body.sealed, key: key, conversationID: conversation, author: Keys.alice.id, seq: 3)
        }
    }

    @Test func aDescriptionBreakingTheRulesDoesNotOpen() throws {
        let key = AEAD.generateKey()
        var plaintext = Confab_V1_FilePlaintext()
        plaintext.name = "x"
        plaintext.key = Data(repeating: 1, count: 31)
        plaintext.sha256 = Data(repeating: 2, count: 32)
        let bytes: [UInt8] = try plaintext.serializedBytes()
        var aad = EntryDomain.fileMessage + conversation.bytes + Keys.alice.id.bytes
        withUnsafeBytes(of: UInt64(2).bigEndian) { aad.append(contentsOf: $0) }
        let sealed = try AEAD.seal(bytes, key: key, additionalData: aad)
        #expect(throws: CryptoError.self) {
            try FileCipher.openDescription(
                sealed, key: key, conversationID: conversation, author: Keys.alice.id, seq: 2)
        }
    }

    @Test func fileBodiesOutsideTheLimitsAreRefusedByEveryone() throws {
        let (_, create) = try makeCreate()
        func entry(_ body: Confab_V1_FileBody) throws -> [UInt8] {
            var content = Confab_V1_EntryContent()
            content.conversationID = Data(conversation.bytes)
            content.author = Data(Keys.alice.id.bytes)
            content.seq = 2
            content.previous = Data(create.hash.bytes)
            content.timestampMs = 1_700_000_000_000
            content.clock = EntryCodec.encodeClock(VectorClock([Keys.alice.id: 1]))
            content.file = body
            let bytes: [UInt8] = try content.serializedBytes()
            return envelope(content: bytes, signature: Keys.alice.sign(EntryDomain.signature + bytes))
        }
        var body = Confab_V1_FileBody()
        body.sealed = Data(repeating: 9, count: 100)
        body.size = 1000
        body.chunkSize = 1 << 14
        body.fileID = Data(repeating: 3, count: 32)
        #expect(decodeError(try entry(body)) == nil)
        var bad = body
        bad.chunkSize = 3 << 14
        expectRejected(try entry(bad), .malformed, mentioning: "file layout")
        bad = body
        bad.size = (1 << 14) * (1 << 14) + 1
        expectRejected(try entry(bad), .malformed, mentioning: "file layout")
        bad = body
        bad.fileID = Data(repeating: 3, count: 31)
        expectRejected(try entry(bad), .malformed, mentioning: "file id")
        bad = body
        bad.sealed = Data(repeating: 9, count: FileCipher.maxSealedBytes + 1)
        expectRejected(try entry(bad), .tooLarge, mentioning: "sealed file description")
        bad = body
        bad.sealed = Data(repeating: 9, count: 39)
        expectRejected(try entry(bad), .malformed, mentioning: "sealed file description")
    }
}
