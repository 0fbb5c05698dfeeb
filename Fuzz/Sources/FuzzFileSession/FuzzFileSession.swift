import CLibFuzzerDriver
import ConfabCrypto
import ConfabModel
import ConfabSync
import ConfabWire
import Foundation
import FuzzStoreSnapshot

// @testable for the conversation key, to seal the peer's file entry.
@testable import ConfabStore

// A hostile peer's file messages (Protocol.md §17.5): the input is a sequence of session
// messages (each a 2-byte big-endian length and that many bytes), decoded as from the
// network and handed to a real file exchange over a store that shares a conversation with
// the peer, holds a file of this node's whole (to serve) and wants one of the peer's (to
// fetch). Wants for anything, manifests and chunks that were never asked or do not match,
// bitmaps of any length: the exchange answers, ignores or counts them, never traps; what
// it hands out to write is only ever a chunk that matches its name.
//
// Every input starts from the same store (StoreSnapshot).

private let me = try! SigningKeyPair(seed: [UInt8](repeating: 0x11, count: 32))
private let peerKeys = try! SigningKeyPair(seed: [UInt8](repeating: 0x22, count: 32))
private let peer = NodeID(peerKeys.publicKey)
private let files = FileManager.default.temporaryDirectory.appendingPathComponent("confab-fuzz-files-\(getpid())")
private let (store, mine, theirs): (ConfabStore, FileID, FileID) = {
    let store = try! ConfabStore.inMemory(identity: me, filesDirectory: files)
    let (id, _) = try! store.createConversation(with: [peer], title: "fuzz", firstMessage: "hello")
    let source = files.appendingPathComponent("source")
    try! FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
    // libFuzzer ends a run with exit(): the folder goes with it (a crash keeps it, to look at).
    atexit { try? FileManager.default.removeItem(at: files) }
    try! Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0) }).write(to: source)
    let imported = try! store.importFile(at: source, chunkSize: 1 << 14)
    _ = try! store.sendFile(imported, name: "mine.bin", to: id)
    // The peer's file: its entry, signed by the peer, naming content nobody can make up.
    let key = try! store.conversationKey(id)!
    let layout = FileLayout(size: 50_000, chunkSize: 1 << 14)!
    let manifest = (0..<layout.chunkCount).flatMap { Hash.blake2b([UInt8($0)], length: 32) }
    let fileID = FileCipher.fileID(layout: layout, manifest: manifest)
    let description = FileDescription(
        name: "theirs.bin", key: [UInt8](repeating: 3, count: 32), sha256: [UInt8](repeating: 4, count: 32))
    let sealed = try! FileCipher.sealDescription(
        description, key: SecureBytes(key), conversationID: id, author: peer, seq: 1)
    let entry = EntryCodec.sign(
        EntryDraft(
            conversationID: id, seq: 1, previous: nil, timestamp: 1_700_000_000_000,
            clock: try! store.clock(of: id), body: .file(FileBody(sealed: sealed, layout: layout, fileID: fileID))),
        with: peerKeys)
    _ = try! store.append(EntryCodec.encode(entry))
    return (store, imported.fileID, fileID)
}()
private let snapshot = StoreSnapshot(store)

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    _ = snapshot
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    snapshot.restore()
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var policy = FileFetchPolicy()
    policy.fetchesUnreadable = input.first.map { $0 & 1 == 1 } ?? false
    let exchange = FileExchange(store: store, policy: policy)
    exchange.shares = { _, _ in input.count % 3 != 0 }
    exchange.peerConnected(peer)
    var writes: [FileOutput.ChunkWrite] = []
    writes += (try? exchange.peerReady(peer))?.writes ?? []
    writes += (try? exchange.refresh())?.writes ?? []
    for message in sessionMessages(in: input) {
        writes += (try? exchange.handle(message, from: peer))?.writes ?? []
    }
    _ = try? exchange.tick()
    _ = try? exchange.peerDisconnected(peer)
    // Nothing reaches the disk unless it is a chunk of a file being fetched that matches its
    // name; the only such file here has chunks nobody can make.
    precondition(writes.allSatisfy { $0.file == theirs } && writes.isEmpty, "a chunk that matches no name was taken")
    _ = mine
    return 0
}

@_cdecl("FuzzFileSession_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
