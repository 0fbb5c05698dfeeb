import CLibFuzzerDriver
import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabSync
import ConfabWire
import FuzzStoreSnapshot

// A whole hostile session at the sync level: the input is a sequence of session messages
// (each a 2-byte big-endian length and that many bytes), decoded as from the network and
// handed to a real engine over an in-memory store that holds one conversation with the
// peer. Whatever the peer says — clocks at the seq limit, Wants, fork proofs, entries —
// the engine answers or refuses, never traps, and its progress count stays computable.
//
// Every input starts from the same store (StoreSnapshot): what one input makes the engine
// write (peer clocks, an emptied outbox, entries, receipts, fork proofs) is undone before
// the next. Before, one store served the whole run, and the first input that acknowledged
// the conversation's first message emptied its outbox for every later one.

private let me = try! SigningKeyPair(seed: [UInt8](repeating: 0x11, count: 32))
private let peerKeys = try! SigningKeyPair(seed: [UInt8](repeating: 0x22, count: 32))
private let peer = NodeID(peerKeys.publicKey)
private let snapshot: StoreSnapshot = {
    let store = try! ConfabStore.inMemory(identity: me)
    _ = try! store.createConversation(with: [peer], title: "fuzz", firstMessage: "hello")
    return StoreSnapshot(store)
}()
private var store: ConfabStore { snapshot.store }

/// The store and its snapshot are made before the first input, so the leak check of that
/// input does not count them.
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
    var configuration = SyncConfiguration(role: input.first.map { $0 & 1 == 1 ? .relay : .person } ?? .person)
    let trusted = input.count % 2 == 0
    configuration.trustsRelay = { _ in trusted }
    let engine = SyncEngine(store: store, configuration: configuration)
    engine.peerConnected(peer)
    _ = try? engine.handle(.hello(.init(displayName: "peer", role: .relay, listenPort: 1)), from: peer)
    for message in sessionMessages(in: input) {
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
