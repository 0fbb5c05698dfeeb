import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

@testable import ConfabStore

/// A peer driven by a test: it completes the real handshake with a real node, then says
/// whatever the test tells it to — the truth, or a lie about someone else. It keeps what
/// it legitimately receives in its own store, so it can sign entries that are valid in
/// every respect but the lie under test.
final class HostilePeer: SessionDelegate, @unchecked Sendable {
    let keys: SigningKeyPair
    let store: ConfabStore
    let name: String
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let service = NIOLockedValueBox<SessionService?>(nil)
    private let inbox = NIOLockedValueBox<[(from: NodeID, message: SessionMessage)]>([])
    private let closed = NIOLockedValueBox<[NodeID]>([])
    private let opened = NIOLockedValueBox(0)
    private let answer = NIOLockedValueBox<SessionMessage.Hello?>(nil)

    var id: NodeID { NodeID(keys.publicKey) }

    /// With `reading` false, each session stops reading from the socket after the first
    /// message it delivers (it never consumes it): a peer that asks and never reads.
    init(name: String, reading: Bool = true) throws {
        self.name = name
        keys = SigningKeyPair.generate()
        store = try ConfabStore.inMemory(identity: keys)
        var configuration = SessionConfiguration(
            identity: keys, networkKey: .default, logger: Logger(label: "hostile.\(name)"))
        configuration.maxSessions = 16
        if !reading { configuration.inboxLimit = InboxLimit(messages: 1, bytes: 1) }
        service.withLockedValue { $0 = SessionService(configuration: configuration, group: group, delegate: self) }
    }

    /// Dials a node, and says Hello with whatever name, role and versions the test picks.
    @discardableResult
    func connect(
        to node: NodeProcess, displayName: String? = nil, role: NodeRole = .person, listenPort: UInt16 = 0,
        version: UInt32 = SessionCodec.protocolVersion, oldestVersion: UInt32 = SessionCodec.oldestProtocolVersion
    ) async throws -> PeerSession {
        let session = try await sessions.dial(host: "127.0.0.1", port: try node.listenPort(), remote: try node.nodeID())
        session.send(
            .hello(
                .init(
                    version: version, oldestVersion: oldestVersion, displayName: displayName ?? name, role: role,
                    listenPort: listenPort)))
        return session
    }

    /// Accepts sessions on loopback (a port the OS picks); each one opened is greeted with
    /// `hello`.
    func listen(hello: SessionMessage.Hello) async throws -> Int {
        answer.withLockedValue { $0 = hello }
        let address = try await sessions.listen(host: "127.0.0.1", port: 0)
        return address.port!
    }

    /// Sessions opened with this peer so far, either way.
    var sessionsOpened: Int { opened.withLockedValue { $0 } }

    private var sessions: SessionService { service.withLockedValue { $0! } }

    func send(_ message: SessionMessage, to node: NodeProcess) throws {
        try send([message], to: node)
    }

    /// All in one write.
    func send(_ messages: [SessionMessage], to node: NodeProcess) throws {
        guard try sendIfConnected(messages, to: node) else {
            throw NodeProcess.Failure("\(name) has no session with \(node.name)")
        }
    }

    /// Sends if a session with `node` is open, and says whether one was: for a test that
    /// answers a node which may close the session between two answers.
    @discardableResult
    func sendIfConnected(_ messages: [SessionMessage], to node: NodeProcess) throws -> Bool {
        guard let session = sessions.session(with: try node.nodeID()) else { return false }
        session.send(messages)
        return true
    }

    /// One at a time, each once the session can take more (below its write buffer's high
    /// mark): a flood larger than the write buffer all reaches the node, at the pace it
    /// reads, instead of this peer giving up on a node that does not read fast enough.
    func sendPaced(_ messages: [SessionMessage], to node: NodeProcess, timeout: TimeInterval = 60) async throws {
        let nodeID = try node.nodeID()
        for message in messages {
            guard let session = sessions.session(with: nodeID) else {
                throw NodeProcess.Failure("\(name) has no session with \(node.name)")
            }
            try await waitUntil(timeout: timeout, "\(name)'s session with \(node.name) to take more", every: 0.01) {
                session.isWritable
            }
            session.send(message)
            // `send` hands the message to the session's event loop: once a task queued after it
            // there has run, the write is in the channel and its writability tells.
            try await session.closeFuture.eventLoop.submit {}.get()
        }
    }

    /// Waits until `node` has handled everything this peer sent it so far. A node answers a
    /// Clocks naming a conversation it does not hold (once per conversation, up to 4,096
    /// of them a session), and handles a session's messages in order: the answer to a
    /// made-up one comes once whatever was sent before it has been dealt with.
    func barrier(with node: NodeProcess, timeout: TimeInterval = 30) async throws {
        let marker = ConversationID.random()
        try send(.clocks([.init(conversation: marker, clock: VectorClock([id: 1]))]), to: node)
        try await waitUntil(timeout: timeout, "\(node.name) to answer \(name)'s made-up conversation") {
            try received(from: node).contains { $0.clocks?.contains { $0.conversation == marker } ?? false }
        }
    }

    /// The create entry of a new conversation between this peer and a throwaway key: valid,
    /// and not kept by a person's node, which logs `notStoredForeign` for it. A marker in the
    /// node's log, where `barrier` gets no answer: a peer that does not read, or one whose
    /// made-up conversations the node has stopped answering.
    func foreignEntries() throws -> [[UInt8]] {
        let other = NodeID(SigningKeyPair.generate().publicKey)
        let (conversation, _) = try store.createConversation(with: [other], firstMessage: nil)
        return try store.entries(in: conversation, author: id, after: 0, limit: 1)
    }

    /// What a person's node logs for an entry of `foreignEntries()`.
    var notStoredForeign: String {
        "entry from \(id.shortHex) not stored: a conversation this node is not a participant of"
    }

    func isConnected(to node: NodeProcess) throws -> Bool { sessions.session(with: try node.nodeID()) != nil }

    /// Everything received so far from `node`.
    func received(from node: NodeProcess) throws -> [SessionMessage] {
        let id = try node.nodeID()
        return inbox.withLockedValue { $0.filter { $0.from == id }.map(\.message) }
    }

    /// Conversations `node` announced to this peer with a non-empty clock.
    func announced(by node: NodeProcess) throws -> Set<ConversationID> {
        var ids = Set<ConversationID>()
        for clocks in try received(from: node).compactMap(\.clocks) {
            for item in clocks where !item.clock.isEmpty { ids.insert(item.conversation) }
        }
        return ids
    }

    /// Takes what a node offers as an honest member would: answers invitations and stores
    /// what arrives, until `conversation` is held up to `seqs` of its creator.
    func takeConversation(
        _ conversation: ConversationID, from node: NodeProcess, until done: () throws -> Bool
    )
        async throws
    {
        try send(.request([.init(conversation: conversation, clock: VectorClock())]), to: node)
        try await waitUntil(timeout: 30, "\(name) to receive the conversation") {
            for case .entries(let batch) in try received(from: node) {
                _ = try store.append(batch: batch)
            }
            return try done()
        }
    }

    /// A message entry of this peer's, signed, with the given clock (by default, the
    /// honest one: what its store holds).
    func message(
        _ text: String, in conversation: ConversationID, clock: VectorClock? = nil, seq: UInt64? = nil,
        previous: EntryHash?? = nil, timestamp: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    ) throws -> [UInt8] {
        let held = try store.clock(of: conversation)
        let seq = seq ?? held[id] + 1
        let keyBytes = try store.writer.read { db in
            try [UInt8].fetchOne(
                db, sql: "SELECT conversationKey FROM conversation WHERE id = ?", arguments: [conversation.bytes])
        }
        guard let keyBytes else { throw NodeProcess.Failure("\(name) cannot read \(conversation.shortHex)") }
        let key = SecureBytes(keyBytes)
        let sealed = try ConversationCipher.sealMessage(
            text, key: key, conversationID: conversation, author: id, seq: seq)
        var honest = held
        honest[id] = seq - 1
        let previousHash: EntryHash? =
            try previous
            ?? (seq == 1
                ? nil
                : try store.entries(in: conversation, author: id, after: seq - 2, limit: 1).first
                    .map { try EntryCodec.decodeUnverified($0).hash })
        return EntryCodec.encode(
            EntryCodec.sign(
                EntryDraft(
                    conversationID: conversation, seq: seq, previous: previousHash, timestamp: timestamp,
                    clock: clock ?? honest, body: .message(sealed: sealed)),
                with: keys))
    }

    func waitForClose(of node: NodeProcess, timeout: TimeInterval) async throws -> Bool {
        let id = try node.nodeID()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if closed.withLockedValue({ $0.contains(id) }) { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    func shutdown() async {
        await sessions.shutdown()
        try? await group.shutdownGracefully()
    }

    // MARK: SessionDelegate

    func sessionDidOpen(_ session: PeerSession) {
        opened.withLockedValue { $0 += 1 }
        if !session.isInitiator, let hello = answer.withLockedValue({ $0 }) { session.send(.hello(hello)) }
    }
    func session(_ session: PeerSession, didReceive message: SessionMessage) {
        inbox.withLockedValue { $0.append((session.remote, message)) }
    }
    func sessionDidClose(_ session: PeerSession, error: (any Error)?) {
        closed.withLockedValue { $0.append(session.remote) }
    }
}

extension NodeProcess {
    func nodeID() throws -> NodeID {
        guard let id = NodeID(hex: key) else { throw Failure("\(name) has no key") }
        return id
    }

    func listenPort() throws -> Int {
        guard process != nil, port != 0 else { throw Failure("\(name) is not running") }
        return port
    }

    /// The id of the newest conversation in `list --json`.
    func newestConversation() throws -> ConversationID {
        let list = try cli(["list", "--json"])
        guard let rows = try list.json() as? [[String: Any]], let hex = rows.first?["id"] as? String,
            let id = ConversationID(hex: hex)
        else { throw Failure("\(name) lists no conversation: \(list.stderr)") }
        return id
    }
}

extension SessionMessage {
    /// The clocks of a `Clocks` message, whether or not it is a request (Protocol.md §12.5).
    var clocks: [ConversationClock]? {
        switch self {
        case .clocks(let clocks), .request(let clocks): clocks
        default: nil
        }
    }
}
