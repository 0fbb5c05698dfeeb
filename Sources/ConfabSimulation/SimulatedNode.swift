import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabSync
import ConfabWire
import NIOConcurrencyHelpers

/// One node: a real store (SQLite in memory) and the real sync engine, reading the
/// simulation's clock. What it is sent, its timer and its writes wait in its inbox and are
/// handled one at a time, as in the node's isolation domain.
final class SimulatedNode {
    struct Arrival {
        let from: Int
        /// Which session of the link carried it: one closed since drops it.
        let session: Int
        let message: SessionMessage
    }

    let index: Int
    let store: ConfabStore
    let engine: SyncEngine
    var id: NodeID { store.me }
    /// Sessions by peer index.
    var peers: [Int: LinkID] = [:]
    private var inbox: [Simulation.Work] = []
    /// Bytes of entries waiting in the inbox: what the node's engine is told is still
    /// unhandled (`SyncConfiguration.backlog`), as a real node's inbox tells it.
    private let backlog = NIOLockedValueBox(0)
    private var inboxHead = 0
    var busy = false

    init(index: Int, seed: UInt64, clock: VirtualClock) throws {
        self.index = index
        var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let keys = try SigningKeyPair(seed: random.bytes(32))
        store = try ConfabStore.inMemory(identity: keys)
        var configuration = SyncConfiguration(role: .person)
        configuration.now = { clock.now }
        // As a person's node runs it (NodeOptions' default).
        configuration.authorRateLimit = .default
        let backlog = backlog
        configuration.backlog = { backlog.withLockedValue { $0 } }
        engine = SyncEngine(store: store, configuration: configuration)
    }

    var hasWaiting: Bool { inboxHead < inbox.count }

    func enqueue(_ work: Simulation.Work) {
        inbox.append(work)
        let bytes = Self.entryBytes(work)
        if bytes > 0 { backlog.withLockedValue { $0 += bytes } }
    }

    private static func entryBytes(_ work: Simulation.Work) -> Int {
        guard case .message(let arrival) = work, case .entries(let entries) = arrival.message else { return 0 }
        return entries.reduce(0) { $0 + $1.count }
    }

    func takeNext() -> Simulation.Work? {
        guard hasWaiting else { return nil }
        let work = inbox[inboxHead]
        inboxHead += 1
        let bytes = Self.entryBytes(work)
        if bytes > 0 { backlog.withLockedValue { $0 -= bytes } }
        if inboxHead > 1024, inboxHead * 2 > inbox.count {
            inbox.removeFirst(inboxHead)
            inboxHead = 0
        }
        return work
    }
}
