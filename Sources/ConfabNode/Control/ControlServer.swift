import ConfabModel
import ConfabStore
import Foundation
import Logging
import NIOCore
import NIOPosix

/// Serves the control socket (Protocol.md §13): a Unix domain socket in the data directory,
/// mode 0600, so only the node's owner can drive it. Each request is answered by the node's
/// `LocalMessenger`, so the socket does exactly what a front end in the node's own process
/// would do.
public final class ControlServer: Sendable {
    public static let socketName = "control.sock"
    /// A request line longer than this closes the connection.
    public static let maxLineBytes = 256 * 1024

    private let server: NIOAsyncChannel<NIOAsyncChannel<[ByteBuffer], ByteBuffer>, Never>
    public let path: String

    public static func socketPath(_ directory: DataDirectory) -> String {
        directory.url.appendingPathComponent(socketName).path
    }

    /// Whether a node seems to serve this data directory (its socket exists).
    public static func mightBeRunning(_ directory: DataDirectory) -> Bool {
        FileManager.default.fileExists(atPath: socketPath(directory))
    }

    /// Binds the socket; `run` serves it.
    static func bind(_ directory: DataDirectory, group: any EventLoopGroup) async throws -> ControlServer {
        let path = socketPath(directory)
        // A socket file left by a node that died; the node lock proves nobody serves it.
        unlink(path)
        let server = try await ServerBootstrap(group: group)
            .bind(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                    try channel.pipeline.syncOperations.addHandler(LineBatcher())
                    return try NIOAsyncChannel<[ByteBuffer], ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        chmod(path, 0o600)
        return ControlServer(server: server, path: path)
    }

    private init(server: NIOAsyncChannel<NIOAsyncChannel<[ByteBuffer], ByteBuffer>, Never>, path: String) {
        self.server = server
        self.path = path
    }

    /// Serves connections, each on its own child task, until cancelled or closed.
    func run(messenger: LocalMessenger, logger: Logger) async {
        do {
            try await server.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        group.addTask { await Self.serve(connection, messenger: messenger, logger: logger) }
                    }
                }
            }
        } catch {
            logger.debug("control socket closed: \(error)")
        }
    }

    public func close() async {
        try? await server.channel.close()
        unlink(path)
    }

    /// One connection: requests answered strictly in order; after `watch`, events until
    /// the client goes away. Lines come in the batches the socket delivered them in, and
    /// consecutive `send`s to one conversation in a batch are stored in one transaction.
    private static func serve(
        _ connection: NIOAsyncChannel<[ByteBuffer], ByteBuffer>, messenger: LocalMessenger, logger: Logger
    ) async {
        // The file's mode keeps other users out; the kernel's word on who connected holds
        // even if that mode was loosened by hand.
        guard await peerIsOwner(connection.channel) else {
            logger.warning("control socket: refused a connection from another user")
            try? await connection.channel.close()
            return
        }
        do {
            try await connection.executeThenClose { inbound, outbound in
                var batches = inbound.makeAsyncIterator()
                while let batch = try await batches.next() {
                    var requests = batch.map { line in
                        Result {
                            try JSONOutput.decoder().decode(ControlEnvelope.self, from: Data(line.readableBytesView))
                        }
                    }[...]
                    while let first = requests.first {
                        let envelope: ControlEnvelope
                        switch first {
                        case .failure(let error):
                            requests.removeFirst()
                            try await outbound.write(
                                line(ControlResponse<ControlEmpty>.failure(describe(error), id: nil)))
                            continue
                        case .success(let decoded):
                            envelope = decoded
                        }
                        if case .watch(let conversation) = envelope.request {
                            // Nothing more is asked on a watching connection.
                            let events = try await messenger.events(for: conversation)
                            try await outbound.write(line(ControlResponse.success(ControlEmpty(), id: envelope.id)))
                            try await stream(events, to: outbound, until: batches)
                            return
                        }
                        let sends = sendRun(requests)
                        if sends.count > 1 {
                            requests.removeFirst(sends.count)
                            try await outbound.write(contentsOf: await answer(sends, messenger: messenger))
                        } else {
                            requests.removeFirst()
                            try await outbound.write(await answer(envelope, messenger: messenger))
                        }
                    }
                }
            }
        } catch {
            logger.debug("control connection: \(error)")
        }
    }

    /// The `send`s to one existing conversation at the front of `requests` (replies go
    /// one at a time).
    private static func sendRun(_ requests: ArraySlice<Result<ControlEnvelope, any Error>>) -> [ControlEnvelope] {
        var run: [ControlEnvelope] = []
        var target: ConversationID?
        for request in requests {
            guard case .success(let envelope) = request, case .send(_, .conversation(let id), nil) = envelope.request,
                target == nil || target == id
            else { break }
            target = id
            run.append(envelope)
        }
        return run
    }

    /// Sends stored together; if the lot is refused (one empty line, say), each is tried
    /// alone so every request gets its own answer.
    private static func answer(_ sends: [ControlEnvelope], messenger: LocalMessenger) async -> [ByteBuffer] {
        var texts: [String] = []
        var conversation: ConversationID?
        for case .send(let text, .conversation(let id), _) in sends.map(\.request) {
            texts.append(text)
            conversation = id
        }
        if let conversation, let sent = try? await messenger.send(texts, to: conversation) {
            return zip(sent, sends).map { reply($0, $1.id) }
        }
        var answers: [ByteBuffer] = []
        for envelope in sends { answers.append(await answer(envelope, messenger: messenger)) }
        return answers
    }

    /// Writes events until the client closes its end (or the node stops).
    private static func stream(
        _ events: AsyncStream<NodeEvent>, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        until lines: NIOAsyncChannelInboundStream<[ByteBuffer]>.AsyncIterator
    ) async throws {
        // Only the second child task reads it, and the caller returns once this does.
        nonisolated(unsafe) var remaining = lines
        try await withThrowingTaskGroup { group in
            group.addTask {
                for await event in events { try await outbound.write(Self.line(ControlEvent(event))) }
            }
            // Nothing more is asked on a watching connection: its end is what we wait for.
            group.addTask { while try await remaining.next() != nil {} }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    private static func answer(_ envelope: ControlEnvelope, messenger: LocalMessenger) async -> ByteBuffer {
        let id = envelope.id
        do {
            switch envelope.request {
            case .status: return reply(try await messenger.status(), id)
            case .peers: return reply(try await messenger.peers(), id)
            case .send(let text, let target, let replyTo):
                return reply(try await messenger.send(text, to: target, replyTo: replyTo), id)
            case .sendLines(let texts, let conversation):
                guard let sent = SentLines(try await messenger.send(texts, to: conversation)) else {
                    // One transaction writes them in a row: this would be a bug, said as it is.
                    throw NodeError.control(
                        "the messages were stored, but not as one run of seqs — look at them with \"confab history\" before sending them again"
                    )
                }
                return reply(sent, id)
            case .sendFile(let path, let folder, let target):
                return reply(try await messenger.sendFile(at: path, folder: folder, to: target), id)
            case .acceptFile(let file): try await messenger.acceptFile(file)
            case .create(let participants, let title, let firstMessage):
                let created = try await messenger.create(with: participants, title: title, firstMessage: firstMessage)
                return reply(created, id)
            case .edit(let conversation, let target, let text):
                return reply(try await messenger.edit(target, in: conversation, text: text), id)
            case .changeMembers(let conversation, let add, let remove, let shareHistory):
                return reply(
                    try await messenger.changeMembers(
                        of: conversation, add: add, remove: remove, shareHistory: shareHistory),
                    id)
            case .leave(let conversation):
                return reply(try await messenger.leave(conversation), id)
            case .unsend(let conversation, let target):
                return reply(try await messenger.unsend(target, in: conversation), id)
            case .react(let conversation, let target, let emoji, let removed):
                return reply(try await messenger.react(emoji, to: target, in: conversation, removed: removed), id)
            case .markRead(let conversation): return reply(try await messenger.markRead(conversation), id)
            case .setFlag(let flag, let value, let conversation):
                try await messenger.setFlag(flag, value, on: conversation)
            case .delete(let conversation): try await messenger.delete(conversation)
            case .setTrust(let trust, let peer): try await messenger.setTrust(trust, for: peer)
            case .changed(let conversation): try await messenger.changed(conversation)
            case .typing(let conversation, let active): try await messenger.typing(active, in: conversation)
            case .resync: try await messenger.resync()
            case .watch: break
            }
            return reply(ControlEmpty(), id)
        } catch {
            return line(ControlResponse<ControlEmpty>.failure("\(error)", id: id))
        }
    }

    /// Why a request line was refused, in terms of the request, never a Swift dump.
    static func describe(_ error: any Error) -> String {
        if let malformed = error as? ControlEnvelope.Malformed { return malformed.description }
        let context: DecodingError.Context
        switch error as? DecodingError {
        case .dataCorrupted(let found), .typeMismatch(_, let found), .valueNotFound(_, let found),
            .keyNotFound(_, let found):
            context = found
        default:
            return "not a JSON request"
        }
        guard !context.codingPath.isEmpty else { return "not a JSON request" }
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return "bad request: \(path): \(context.debugDescription)"
    }

    private static func reply<Result: Codable & Sendable>(_ result: Result, _ id: Int?) -> ByteBuffer {
        line(ControlResponse.success(result, id: id))
    }

    private static func line(_ value: some Encodable) -> ByteBuffer {
        ByteBuffer(string: ((try? JSONOutput.line(value)) ?? #"{"ok":false}"#) + "\n")
    }

    /// Whether the process at the other end runs as this user (`SO_PEERCRED`).
    private static func peerIsOwner(_ channel: any Channel) async -> Bool {
        guard let provider = channel as? any SocketOptionProvider else { return false }
        let credentials: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        return (try? await credentials.get().uid) == getuid()
    }
}

/// Linux's `struct ucred` (pid, uid, gid), which Glibc's Swift module does not export.
struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
