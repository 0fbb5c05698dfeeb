import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB
import Testing

@testable import ConfabStore

/// A file of `size` bytes with contents that differ per `seed`, in a scratch directory.
func writeSampleFile(
    _ directory: TemporaryDirectory, name: String = "sample.bin", size: Int, seed: UInt8 = 1
) throws
    -> (url: URL, bytes: [UInt8])
{
    let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed) &* 7 &+ ($0 >> 11)) }
    let url = directory.url.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return (url, bytes)
}

@Suite("Files in the store")
struct FileStoreTests {
    @Test func aFileIsSealedInTheEpochInForceAndReadByWhoeverHoldsItsKey() throws {
        let scratch = try TemporaryDirectory()
        func store(_ keys: SigningKeyPair, _ name: String) throws -> ConfabStore {
            try ConfabStore.inMemory(identity: keys, filesDirectory: scratch.url.appendingPathComponent(name))
        }
        let (alice, bob, carol, dave) = (
            try store(Keys.alice, "a"), try store(Keys.bob, "b"), try store(Keys.carol, "c"),
            try store(Keys.mallory, "d")
        )
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "look")
        let first = try alice.importFile(at: try writeSampleFile(scratch, name: "one.bin", size: 40_000).url)
        _ = try alice.sendFile(first, name: "before.pdf", to: id)
        try sync(id, from: alice, to: bob)
        // Carol is added with the history: the file came before the key that opens it, and
        // is read once the add hands that key over. Dave, added without, never reads it.
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], shareHistory: true)
        _ = try alice.changeMembers(of: id, add: [Keys.mallory.id])
        for other in [bob, carol, dave] { try sync(id, from: alice, to: other, invited: other !== bob) }
        func names(_ store: ConfabStore) throws -> [String] { try store.files(in: id).compactMap(\.name) }
        #expect(try names(carol) == ["before.pdf"])
        #expect(try names(dave).isEmpty)
        // A file in the latest epoch: every member now reads it.
        let second = try carol.importFile(at: try writeSampleFile(scratch, name: "two.bin", size: 40_000, seed: 2).url)
        _ = try carol.sendFile(second, name: "after.pdf", to: id)
        for other in [alice, bob, dave] { try sync(id, from: carol, to: other) }
        for member in [alice, bob, dave] { #expect(try names(member).contains("after.pdf")) }
    }

    @Test func aSentFileIsHeldWholeAndAReceivedOneWaitsForItsChunks() throws {
        let scratch = try TemporaryDirectory()
        let alice = try ConfabStore.inMemory(
            identity: Keys.alice, filesDirectory: scratch.url.appendingPathComponent("a"))
        let bob = try ConfabStore.inMemory(identity: Keys.bob, filesDirectory: scratch.url.appendingPathComponent("b"))
        let (conversation, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "look")
        let sample = try writeSampleFile(scratch, size: 600_000)
        let imported = try alice.importFile(at: sample.url)
        #expect(imported.layout.chunkCount == 3)
        #expect(imported.sha256 == Hash.sha256(sample.bytes))
        let entry = try alice.sendFile(imported, name: "../../holiday.jpg", mediaType: "image/jpeg", to: conversation)
        #expect(entry.kind == .file)
        let mine = try #require(try alice.fileRecord(imported.fileID))
        #expect(mine.isComplete && mine.manifest == imported.manifest)
        // The stored content is the chunks, each where the layout says.
        for index in 0..<imported.layout.chunkCount {
            let chunk = try alice.content.read(imported.fileID, index: index, layout: imported.layout)
            #expect(Array(FileCipher.chunkName(in: imported.manifest, index: index)) == FileCipher.chunkName(chunk))
        }
        #expect(try alice.history(conversation).last?.file?.state == .complete)

        try sync(conversation, from: alice, to: bob)
        let theirs = try #require(try bob.fileRecord(imported.fileID))
        #expect(!theirs.isComplete && theirs.manifest == nil && theirs.held.heldCount == 0 && theirs.readable)
        let shown = try #require(try bob.history(conversation).last)
        #expect(shown.text == "../../holiday.jpg")
        let file = try #require(shown.file)
        #expect(file.state == .fetching && file.heldBytes == 0 && file.size == 600_000)
        #expect(file.mediaType == "image/jpeg")
        #expect(file.relativePath == [".._.._holiday.jpg"])
        #expect(try bob.unreadCount(conversation) == 2)

        // Chunks count as held only once recorded, and the file is complete with all of them.
        _ = try bob.recordManifest(imported.fileID, manifest: imported.manifest)
        _ = try bob.recordHeld(imported.fileID, chunks: [2, 0])
        #expect(try bob.files(in: conversation).first?.heldBytes == 600_000 - 262_144)
        _ = try bob.recordHeld(imported.fileID, chunks: [1])
        #expect(try bob.fileRecord(imported.fileID)?.isComplete == true)
        #expect(try bob.files(in: conversation).first?.state == .complete)
    }

    @Test func theSameFileSentTwiceIsStoredOnce() throws {
        let scratch = try TemporaryDirectory()
        let files = scratch.url.appendingPathComponent("files")
        let alice = try ConfabStore.inMemory(identity: Keys.alice, filesDirectory: files)
        let (one, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "a")
        let (two, _) = try alice.createConversation(with: [Keys.carol.id], firstMessage: "b")
        let sample = try writeSampleFile(scratch, size: 100_000)
        let first = try alice.importFile(at: sample.url)
        _ = try alice.sendFile(first, name: "a.bin", to: one)
        let second = try alice.importFile(at: sample.url)
        _ = try alice.sendFile(second, name: "copy.bin", to: two)
        #expect(second.fileID == first.fileID && second.key == first.key)
        let other = try alice.importFile(at: try writeSampleFile(scratch, name: "other", size: 100_000, seed: 2).url)
        #expect(other.fileID != first.fileID)
        let stored = try FileManager.default.contentsOfDirectory(atPath: files.path).sorted()
        #expect(stored == [first.fileID.hex, other.fileID.hex].sorted())
    }

    @Test func aRelayKeepsTheFileButCannotReadIt() throws {
        let scratch = try TemporaryDirectory()
        let alice = try ConfabStore.inMemory(
            identity: Keys.alice, filesDirectory: scratch.url.appendingPathComponent("a"))
        let relay = try makeStore(Keys.relay)
        let (conversation, _) = try alice.createConversation(with: [Keys.bob.id])
        let imported = try alice.importFile(at: try writeSampleFile(scratch, size: 10).url)
        _ = try alice.sendFile(imported, name: "n.txt", to: conversation)
        try sync(conversation, from: alice, to: relay, asRelay: true)
        let record = try #require(try relay.fileRecord(imported.fileID))
        #expect(!record.readable && record.layout == imported.layout)
        #expect(try relay.fileConversations(imported.fileID) == [conversation])
        #expect(try relay.files().isEmpty)
    }

    @Test func aFileCanBeDeletedForEveryoneButNotEdited() throws {
        let scratch = try TemporaryDirectory()
        let alice = try ConfabStore.inMemory(
            identity: Keys.alice, filesDirectory: scratch.url.appendingPathComponent("a"))
        let bob = try makeStore(Keys.bob)
        let (conversation, _) = try alice.createConversation(with: [Keys.bob.id])
        let imported = try alice.importFile(at: try writeSampleFile(scratch, size: 10).url)
        let entry = try alice.sendFile(imported, name: "n.txt", to: conversation)
        #expect(throws: StoreError.self) { try alice.editMessage(entry.seq, in: conversation, text: "x") }
        try sync(conversation, from: alice, to: bob)
        // A modified sender signs an edit of its file anyway: every node refuses it.
        let key = try conversationKey(alice, conversation)
        let sealed = try ConversationCipher.sealMessage(
            "renamed", key: key, conversationID: conversation, author: Keys.alice.id, seq: entry.seq + 1)
        let edit = EntryCodec.encode(
            EntryCodec.sign(
                try nextDraft(alice, in: conversation, body: .edit(target: entry.seq, sealed: sealed)),
                with: Keys.alice))
        _ = try expectAppendRejected(edit, by: bob, .badTarget)
        let content = alice.content.url(of: imported.fileID).path
        #expect(FileManager.default.fileExists(atPath: content))
        _ = try alice.unsendMessage(entry.seq, in: conversation)
        // Its content leaves the sender's disk with the deletion.
        #expect(!FileManager.default.fileExists(atPath: content))
        #expect(try alice.fileRecord(imported.fileID) == nil)
        try sync(conversation, from: alice, to: bob)
        #expect(try bob.history(conversation).last?.isDeleted == true)
        #expect(try bob.fileForSaving(imported.fileID) == nil)
        #expect(try bob.removeOrphanedFiles() == [imported.fileID])
        #expect(try bob.incompleteFiles().isEmpty)
    }

    @Test func deletingAConversationHereRemovesItsFilesButNotOnesStillToBeSent() throws {
        let scratch = try TemporaryDirectory()
        let alice = try ConfabStore.inMemory(
            identity: Keys.alice, filesDirectory: scratch.url.appendingPathComponent("a"))
        let bob = try ConfabStore.inMemory(identity: Keys.bob, filesDirectory: scratch.url.appendingPathComponent("b"))
        let (conversation, _) = try alice.createConversation(with: [Keys.bob.id])
        let sent = try alice.importFile(at: try writeSampleFile(scratch, size: 10).url)
        _ = try alice.sendFile(sent, name: "a.txt", to: conversation)
        try sync(conversation, from: alice, to: bob, ack: false)
        // Bob holds it whole; deleting the conversation here removes it.
        let record = try #require(try bob.fileRecord(sent.fileID))
        try bob.content.allocate(sent.fileID, layout: record.layout)
        _ = try bob.recordManifest(sent.fileID, manifest: sent.manifest)
        try bob.deleteConversation(conversation)
        #expect(try bob.fileRecord(sent.fileID) == nil)
        #expect(!FileManager.default.fileExists(atPath: bob.content.url(of: sent.fileID).path))
        // Alice's own file has reached nobody acknowledging it: it stays for peers to fetch.
        try alice.deleteConversation(conversation)
        #expect(try alice.fileRecord(sent.fileID)?.isComplete == true)
    }

    @Test func anImportRefusesWhatIsNotARegularFileOrTooLarge() throws {
        let scratch = try TemporaryDirectory()
        let alice = try ConfabStore.inMemory(
            identity: Keys.alice, filesDirectory: scratch.url.appendingPathComponent("a"))
        #expect(throws: ContentStoreError.self) { try alice.importFile(at: scratch.url) }
        let sample = try writeSampleFile(scratch, size: 2000)
        #expect(throws: ContentStoreError.self) { try alice.importFile(at: sample.url, maxSize: 1999) }
        #expect(throws: ContentStoreError.self) {
            try alice.importFile(at: scratch.url.appendingPathComponent("missing"))
        }
        // Nothing half-made is left behind.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: alice.content.directory.path)) ?? []
        #expect(left.isEmpty)
    }
}
