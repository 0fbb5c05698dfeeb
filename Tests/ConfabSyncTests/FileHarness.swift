import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation

@testable import ConfabStore
@testable import ConfabSync

/// Nodes with a sync engine and a file exchange, connected by in-memory sessions, as the
/// node wires them: file messages go to the exchange, the rest to the engine, and checked
/// chunks are written (`ChunkWrites`) before the exchange hears they are held. No sockets.
final class FileHarness {
    final class Node {
        let base: SyncHarness.Node
        let exchange: FileExchange
        let files: URL
        var name: String { base.name }
        var id: NodeID { base.id }
        var store: ConfabStore { base.store }

        init(name: String, seed: UInt8, role: NodeRole = .person) throws {
            files = FileManager.default.temporaryDirectory.appendingPathComponent("confab-harness-\(UUID().uuidString)")
            base = try SyncHarness.Node(name: name, seed: seed, role: role, filesDirectory: files)
            ownsFiles = true
            exchange = Self.exchange(for: base, role: role)
        }

        /// A node on an existing store (a restart): new engine and exchange, same data.
        init(reusing store: ConfabStore, name: String, files: URL) throws {
            self.files = files
            base = try SyncHarness.Node(name: name, store: store)
            ownsFiles = false
            exchange = Self.exchange(for: base, role: .person)
        }

        private let ownsFiles: Bool

        private static func exchange(for base: SyncHarness.Node, role: NodeRole) -> FileExchange {
            var policy = FileFetchPolicy()
            policy.fetchesUnreadable = role == .relay
            policy.usesAutoDownloadLimit = role == .person
            let exchange = FileExchange(store: base.store, policy: policy)
            exchange.now = { [clock = base.clock] in clock.now }
            exchange.shares = { [engine = base.engine] in try engine.sharesFiles(of: $0, with: $1) }
            return exchange
        }

        deinit { if ownsFiles { try? FileManager.default.removeItem(at: files) } }
    }

    private var nodes: [NodeID: Node] = [:]
    private var links: Set<[NodeID]> = []
    private var queue: [(from: Node, to: Node, message: SessionMessage)] = []
    private var writes: [(Node, [FileOutput.ChunkWrite])] = []
    /// Every message delivered, in order.
    private(set) var log: [(from: NodeID, to: NodeID, message: SessionMessage)] = []
    private(set) var closed: [String] = []
    /// Changes a message on its way (a lying peer); nil drops it.
    var tamper: ((_ from: Node, _ to: Node, SessionMessage) -> SessionMessage?)?
    /// When set, a session a node closes for misbehaviour ends only after the messages
    /// already on their way through it are delivered, as a real node handles what it had read
    /// before the close takes effect.
    var closesAfterInFlight = false
    private var delivered = 0
    private var pendingCloses: [(a: Node, b: Node, after: Int)] = []

    func add(_ node: Node) { nodes[node.id] = node }

    static func trio() throws -> (harness: FileHarness, alice: Node, bob: Node, carol: Node) {
        let harness = FileHarness()
        let nodes = try [("alice", UInt8(1)), ("bob", 2), ("carol", 3)].map { try Node(name: $0.0, seed: $0.1) }
        for node in nodes { harness.add(node) }
        return (harness, nodes[0], nodes[1], nodes[2])
    }

    func connect(_ a: Node, _ b: Node) {
        links.insert([a.id, b.id].sorted())
        for (one, other) in [(a, b), (b, a)] {
            one.base.engine.peerConnected(other.id)
            one.exchange.peerConnected(other.id)
            queue.append((one, other, .hello(.init(displayName: one.name, role: one.base.engine.role, listenPort: 1))))
        }
    }

    func disconnect(_ a: Node, _ b: Node) throws {
        guard links.remove([a.id, b.id].sorted()) != nil else { return }
        for (one, other) in [(a, b), (b, a)] {
            one.base.engine.peerDisconnected(other.id)
            dispatch(try one.exchange.peerDisconnected(other.id), from: one)
        }
        queue.removeAll { ($0.from === a && $0.to === b) || ($0.from === b && $0.to === a) }
    }

    /// A node wrote entries: offered to its peers, and its exchange looks for files.
    func wrote(_ entries: [Entry], at node: Node) throws {
        let output = try node.base.engine.didWrite(entries)
        dispatch(output, from: node, replyTo: nil)
        // As the node does with what it wrote.
        dispatch(try node.exchange.entriesArrived(output.appended), from: node)
    }

    /// The person accepted a file, say: the exchange looks again.
    func refresh(at node: Node) throws {
        dispatch(try node.exchange.refresh(), from: node)
    }

    /// Another process wrote to the conversation: its peers are offered what they lack.
    func changed(_ conversation: ConversationID, at node: Node) throws {
        dispatch(try node.base.engine.offer([conversation]), from: node, replyTo: nil)
    }

    /// Delivers and writes until nothing is left, moving clocks on when quiet so timers run.
    @discardableResult
    func run(maxMessages: Int = 200_000) throws -> Int {
        var count = 0
        var quietTicks = 0
        while quietTicks < 3 {
            while !queue.isEmpty || !writes.isEmpty {
                if !writes.isEmpty {
                    let (node, batch) = writes.removeFirst()
                    for result in ChunkWrites.perform(batch, in: node.store) {
                        dispatch(
                            try node.exchange.written(
                                result.file, chunks: result.chunks, bytes: result.bytes, result: result.outcome),
                            from: node)
                    }
                    continue
                }
                try deliverOne()
                count += 1
                precondition(count < maxMessages, "the exchange did not settle")
            }
            var said = false
            for node in nodes.values.sorted(by: { $0.name < $1.name }) {
                node.base.clock.advance(by: .seconds(1))
                let output = try node.base.engine.tick()
                dispatch(output, from: node, replyTo: nil)
                let files = try node.exchange.tick()
                said = said || !output.pushes.isEmpty || !files.sends.isEmpty || !files.writes.isEmpty
                dispatch(files, from: node)
            }
            quietTicks = said ? 0 : quietTicks + 1
        }
        return count
    }

    /// Each message takes a millisecond, so that what is paced (progress told to peers) is
    /// paced here too.
    private func deliverOne() throws {
        for node in nodes.values { node.base.clock.advance(by: .milliseconds(1)) }
        delivered += 1
        for close in pendingCloses where close.after < delivered { try disconnect(close.a, close.b) }
        pendingCloses.removeAll { $0.after < delivered }
        let (from, to, original) = queue.removeFirst()
        guard links.contains([from.id, to.id].sorted()) else { return }
        guard let message = tamper?(from, to, original) ?? (tamper == nil ? original : nil) else { return }
        let decoded = try SessionCodec.decode(SessionCodec.encode(message))!
        log.append((from.id, to.id, decoded))
        switch decoded {
        case .fileWant, .fileManifest, .fileChunk, .fileHave:
            let output = try to.exchange.handle(decoded, from: from.id)
            dispatch(output, from: to)
        default:
            let output = try to.base.engine.handle(decoded, from: from.id)
            if let reason = output.misbehavior {
                closed.append("\(to.name) closed \(from.name): \(reason)")
                try disconnect(from, to)
                return
            }
            dispatch(output, from: to, replyTo: from)
            if case .hello = decoded { dispatch(try to.exchange.peerReady(from.id), from: to) }
            // As the node does.
            dispatch(try to.exchange.entriesArrived(output.appended), from: to)
        }
    }

    private func dispatch(_ output: SyncOutput, from node: Node, replyTo peer: Node?) {
        if let peer { for message in output.replies { queue.append((node, peer, message)) } }
        for (target, messages) in output.pushes {
            guard let other = nodes[target] else { continue }
            for message in messages { queue.append((node, other, message)) }
        }
    }

    private func dispatch(_ output: FileOutput, from node: Node) {
        for (target, messages) in output.sends {
            guard let other = nodes[target] else { continue }
            for message in messages { queue.append((node, other, message)) }
        }
        if !output.writes.isEmpty { writes.append((node, output.writes)) }
        for (peer, reason) in output.misbehaving {
            closed.append("\(node.name) closed \(nodes[peer]?.name ?? "?"): \(reason)")
            guard let other = nodes[peer] else { continue }
            if closesAfterInFlight {
                pendingCloses.append((node, other, delivered + queue.count))
            } else {
                try? disconnect(node, other)
            }
        }
    }

    /// Every chunk `node` sends from now on arrives with its first byte flipped.
    func damageChunks(from node: Node) {
        tamper = { from, _, message in
            guard from === node, case .fileChunk(let file, let index, var data) = message else { return message }
            data[0] ^= 0xff
            return .fileChunk(file: file, index: index, data: data)
        }
    }

    /// Chunks each node sent, by receiver.
    func chunksSent(by node: Node, to other: Node? = nil) -> Int {
        log.filter { entry in
            guard entry.from == node.id, other.map({ entry.to == $0.id }) ?? true else { return false }
            if case .fileChunk = entry.message { return true }
            return false
        }.count
    }
}

extension FileHarness.Node {
    /// The plaintext of a file held whole here, checked as `confab save` checks it.
    func plaintext(of file: FileID) throws -> [UInt8]? {
        guard let (description, record) = try store.fileForSaving(file), record.isComplete else { return nil }
        let key = SecureBytes(description.key)
        var bytes: [UInt8] = []
        for index in 0..<record.layout.chunkCount {
            bytes += try FileCipher.decryptChunk(
                try store.content.read(file, index: index, layout: record.layout), index: index, layout: record.layout,
                key: key)
        }
        return Hash.sha256(bytes) == description.sha256 ? bytes : nil
    }

    /// Sends a file of `size` bytes made from `seed` to a conversation.
    func sendFile(
        size: Int, seed: UInt8 = 1, chunkSize: Int = 1 << 14, to conversation: ConversationID
    ) throws
        -> (entry: Entry, file: FileID, bytes: [UInt8])
    {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed) &* 7 &+ ($0 >> 11)) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("confab-sample-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let imported = try store.importFile(at: url, chunkSize: chunkSize)
        let entry = try store.sendFile(imported, name: "sample.bin", to: conversation)
        return (entry, imported.fileID, bytes)
    }
}
