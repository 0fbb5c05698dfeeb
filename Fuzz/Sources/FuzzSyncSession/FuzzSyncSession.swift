import CLibFuzzerDriver
import ConfabCrypto
import ConfabModel
// @testable for the store's database connection, which the harness resets between inputs
// (run.sh builds the fuzzers with -enable-testing, which testable imports need).
@testable import ConfabStore
import ConfabSync
import ConfabWire
import GRDB

// A whole hostile session at the sync level: the input is a sequence of session messages
// (each a 2-byte big-endian length and that many bytes), decoded as from the network and
// handed to a real engine over an in-memory store that holds one conversation with the
// peer. Whatever the peer says — clocks at the seq limit, Wants, fork proofs, entries —
// the engine answers or refuses, never traps, and its progress count stays computable.
//
// Every input starts from the same store: what one input makes the engine write (peer
// clocks, an emptied outbox, entries, receipts, fork proofs) is undone before the next by
// copying a snapshot of the freshly made store back over it with SQLite's backup API
// (when the input changed a row), so a saved input replays exactly as it ran. Before, one
// store served the whole run, and the first input that acknowledged the conversation's
// first message emptied its outbox for every later one. Making, migrating and filling a
// store per input would cost far more than the input itself.

private let me = try! SigningKeyPair(seed: [UInt8](repeating: 0x11, count: 32))
private let peerKeys = try! SigningKeyPair(seed: [UInt8](repeating: 0x22, count: 32))
private let peer = NodeID(peerKeys.publicKey)
private let store: ConfabStore = {
    let store = try! ConfabStore.inMemory(identity: me)
    _ = try! store.createConversation(with: [peer], title: "fuzz", firstMessage: "hello")
    return store
}()
/// The store's database as made above, before any input.
private let pristine: DatabaseQueue = {
    let copy = try! DatabaseQueue()
    try! store.writer.backup(to: copy)
    return copy
}()

/// The store and its snapshot are made before the first input, so the leak check of that
/// input does not count them.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    _ = pristine
    return 0
}

/// SQLite's count of rows changed on the store's connection when it last equalled the
/// snapshot.
nonisolated(unsafe) private var changesWhenPristine: Int?

/// Copies the snapshot back over the store's database, connection to connection, if the
/// previous input changed any row. Most inputs write nothing, and a copy costs more than
/// the page copy itself: the schema changes under the connection, which then re-reads it
/// and re-prepares its cached statements.
private func restoreStore() {
    try! store.writer.writeWithoutTransaction { db in
        guard db.totalChangesCount != changesWhenPristine else { return }
        try pristine.inDatabase { snapshot in try snapshot.backup(to: db) }
        changesWhenPristine = db.totalChangesCount
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    restoreStore()
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let engine = SyncEngine(store: store, role: input.first.map { $0 & 1 == 1 ? .relay : .person } ?? .person)
    engine.trustsRelay = { _ in input.count % 2 == 0 }
    engine.peerConnected(peer)
    _ = try? engine.handle(.hello(.init(displayName: "peer", role: .relay, listenPort: 1)), from: peer)
    var offset = 1
    while offset + 2 <= input.count {
        let length = Int(input[offset]) << 8 | Int(input[offset + 1])
        offset += 2
        let end = min(input.count, offset + length)
        let unit = input[offset..<end]
        offset = end
        guard let message = try? SessionCodec.decode(unit) else { continue }
        _ = try? engine.handle(message, from: peer)
    }
    _ = try? engine.outstandingEntries()
    engine.peerDisconnected(peer)
    return 0
}

@_cdecl("FuzzSyncSession_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
