import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import NIOConcurrencyHelpers

@testable import ConfabStore
@testable import ConfabSync

/// Nodes made of an in-memory store and a sync engine, connected by in-memory "sessions":
/// messages are queued per link and delivered until nothing is left to say. No sockets;
/// the network layer is tested on its own.
final class SyncHarness {
    final class Node {
        let name: String
        let keys: SigningKeyPair
        let store: ConfabStore
        let engine: SyncEngine
        /// The engine's clock: virtual, moved on by the harness when the network is quiet.
        let clock = VirtualClock()
        var id: NodeID { NodeID(keys.publicKey) }

        init(name: String, seed: UInt8, role: NodeRole = .person, filesDirectory: URL? = nil) throws {
            self.name = name
            keys = try SigningKeyPair(seed: [UInt8](repeating: seed, count: 32))
            store = try ConfabStore.inMemory(identity: keys, filesDirectory: filesDirectory)
            engine = SyncEngine(store: store, configuration: Self.configuration(role: role, clock: clock))
        }

        /// Another engine on an existing store (a node restarted), with the same identity.
        init(name: String, store: ConfabStore) throws {
            self.name = name
            keys = store.identity
            self.store = store
            engine = SyncEngine(store: store, configuration: Self.configuration(role: .person, clock: clock))
        }

        /// The harness's nodes run on its virtual clock and trust each other as relays (the
        /// person added the relay); tests of untrusted claims set this back.
        private static func configuration(role: NodeRole, clock: VirtualClock) -> SyncConfiguration {
            var configuration = SyncConfiguration(role: role)
            configuration.now = { [clock] in clock.now }
            configuration.trustsRelay = { _ in true }
            return configuration
        }
    }

    private(set) var links: Set<[NodeID]> = []
    private var queue: [(from: Node, to: Node, message: SessionMessage)] = []
    private var nodes: [NodeID: Node] = [:]
    private(set) var misbehavior: [String] = []
    private(set) var delivered = 0
    /// Every message delivered, in order.
    private(set) var log: [(from: NodeID, to: NodeID, message: SessionMessage)] = []
    /// Messages this returns true for are lost on the way (the session stays up).
    var loses: ((_ from: NodeID, _ to: NodeID, _ message: SessionMessage) -> Bool)?

    func add(_ node: Node) { nodes[node.id] = node }

    /// A harness with Alice, Bob and Carol, the cast of most sync tests.
    static func trio() throws -> (harness: SyncHarness, alice: Node, bob: Node, carol: Node) {
        let harness = SyncHarness()
        let nodes = try [("alice", UInt8(1)), ("bob", 2), ("carol", 3)].map { try Node(name: $0.0, seed: $0.1) }
        for node in nodes { harness.add(node) }
        return (harness, nodes[0], nodes[1], nodes[2])
    }

    /// Opens a session: both engines learn of each other and say hello. `secondFeatures`:
    /// what `b`'s Hello lists, as an earlier implementation's would.
    func connect(_ a: Node, _ b: Node, secondFeatures: [String] = SessionCodec.features) {
        links.insert([a.id, b.id].sorted())
        a.engine.peerConnected(b.id)
        b.engine.peerConnected(a.id)
        queue.append((a, b, .hello(.init(displayName: a.name, role: a.engine.role, listenPort: 1))))
        queue.append(
            (b, a, .hello(.init(features: secondFeatures, displayName: b.name, role: b.engine.role, listenPort: 1))))
    }

    func disconnect(_ a: Node, _ b: Node) {
        links.remove([a.id, b.id].sorted())
        a.engine.peerDisconnected(b.id)
        b.engine.peerDisconnected(a.id)
        queue.removeAll { ($0.from === a && $0.to === b) || ($0.from === b && $0.to === a) }
    }

    func isConnected(_ a: NodeID, _ b: NodeID) -> Bool { links.contains([a, b].sorted()) }

    /// What a node does after writing locally: offer the new entries to its peers.
    func wrote(_ entries: [Entry], at node: Node) throws {
        dispatch(try node.engine.didWrite(entries), from: node, replyTo: nil)
    }

    /// What a node does with a peer's `Rooms` message (the node turns the names into ids):
    /// `to` learns the rooms `from` said it joined (Protocol.md §18.4).
    func rooms(_ rooms: Set<ConversationID>, from: Node, to: Node) throws {
        dispatch(try to.engine.peerRooms(rooms, of: from.id), from: to, replyTo: from)
    }

    /// What a node does when its store holds other large groups (the node reads them from
    /// the store): the engine shares and spreads them from now on (Protocol.md §19.6).
    func holdLargeGroups(_ groups: Set<ConversationID>, at node: Node) throws {
        dispatch(try node.engine.holdLargeGroups(groups), from: node, replyTo: nil)
    }

    /// Queues a message as if `from`'s node had sent it: what a lying peer says.
    func send(_ message: SessionMessage, from: Node, to: Node) {
        queue.append((from, to, message))
    }

    /// What a node does when another process wrote entries of mine to its store (it saw
    /// their conversations' heads move in the outbox): push them.
    func wroteElsewhere(_ conversations: Set<ConversationID>, at node: Node) throws {
        dispatch(try node.engine.pushOwn(in: conversations), from: node, replyTo: nil)
    }

    /// What a node does when another process grew its own device list (it saw the list's
    /// length move): send the list to its greeted peers (Protocol.md §20.9).
    func listGrewElsewhere(at node: Node) throws {
        dispatch(try node.engine.offerOwnDeviceList(), from: node, replyTo: nil)
    }

    /// Delivers queued messages (each through the real codec) until quiet, then lets time
    /// pass for receipts the engines held back, and goes on until nothing is left to say.
    @discardableResult
    func run(maxMessages: Int = 100_000, limit: Int = .max) throws -> Int {
        var count = 0
        var ticks = 0
        while true {
            count += try deliver(maxMessages: maxMessages, limit: limit - count)
            guard count < limit, try tick() else { return count }
            ticks += 1
            precondition(ticks < 10_000, "the timers did not settle")
        }
    }

    /// Moves one node's clock on by `duration` and runs its timer, then delivers what that
    /// caused until quiet, without letting time pass anywhere else.
    func tick(_ node: Node, by duration: Duration) throws {
        node.clock.advance(by: duration)
        dispatch(try node.engine.tick(), from: node, replyTo: nil)
        try runWithoutTimers()
    }

    /// Delivers what is queued until quiet, without letting time pass: only the eager path.
    func runWithoutTimers() throws {
        _ = try deliver(maxMessages: 100_000, limit: .max)
    }

    /// Moves every node's clock past the receipt interval (and the lazy announcements'
    /// delay) and runs its timer; returns whether that had anything to say.
    private func tick() throws -> Bool {
        var said = false
        for node in nodes.values.sorted(by: { $0.name < $1.name }) {
            node.clock.advance(by: ReceiptPacer.interval)
            let output = try node.engine.tick()
            // Entries waiting for their author's rate are still to come.
            // So are requests for entries whose authors' pushes may still come.
            let waiting =
                node.engine.held.count > 0 || !node.engine.held.dropped.isEmpty || node.engine.waitsForPushes
            said = said || !output.appended.isEmpty || !output.pushes.isEmpty || waiting
            dispatch(output, from: node, replyTo: nil)
        }
        return said
    }

    private func deliver(maxMessages: Int, limit: Int) throws -> Int {
        var count = 0
        while !queue.isEmpty, count < limit {
            let (from, to, message) = queue.removeFirst()
            guard isConnected(from.id, to.id), loses?(from.id, to.id, message) != true else { continue }
            let decoded = try SessionCodec.decode(SessionCodec.encode(message))!
            log.append((from.id, to.id, decoded))
            var output = try to.engine.handle(decoded, from: from.id)
            // As the node does: a create stored may be a large group's, which the engine
            // must know before it offers it (those declared by a test stay declared).
            if output.appended.contains(where: { $0.kind == .create }) {
                let large = to.engine.heldLargeGroups.union(try to.store.largeGroups())
                if large != to.engine.heldLargeGroups { output.merge(try to.engine.holdLargeGroups(large)) }
            }
            if let reason = output.misbehavior {
                misbehavior.append("\(to.name) closed \(from.name): \(reason)")
                disconnect(from, to)
            }
            dispatch(output, from: to, replyTo: from)
            count += 1
            precondition(count < maxMessages, "sync did not settle")
        }
        delivered += count
        return count
    }

    private func dispatch(_ output: SyncOutput, from node: Node, replyTo peer: Node?) {
        if let peer {
            for message in output.replies { queue.append((node, peer, message)) }
        }
        for (target, messages) in output.pushes {
            guard let other = nodes[target] else { continue }
            for message in messages { queue.append((node, other, message)) }
        }
    }
}

/// A clock that moves only when told to.
final class VirtualClock: Sendable {
    private let instant = NIOLockedValueBox(ContinuousClock.now)

    var now: ContinuousClock.Instant { instant.withLockedValue { $0 } }

    func advance(by duration: Duration) { instant.withLockedValue { $0 += duration } }
}

extension ConfabStore {
    /// The conversation key, read the way the store's own tests do, for signing test entries.
    func conversationKeyForTests(_ conversation: ConversationID) throws -> [UInt8]? {
        try conversationKey(conversation)
    }

    func texts(_ conversation: ConversationID) throws -> [String] {
        try history(conversation, limit: 1_000_000).compactMap(\.text)
    }
}

extension ConfabStore {
    /// Each message in a commit of its own, so each is signed (as `send` one at a time writes
    /// them): for tests whose batches or windows are smaller than the run of unsigned
    /// entries a commit of many may leave (Protocol.md §4.3), which a real node's never are.
    func sendEach(_ texts: [String], to conversation: ConversationID) throws -> [Entry] {
        try texts.map { try sendMessage($0, to: conversation) }
    }
}
