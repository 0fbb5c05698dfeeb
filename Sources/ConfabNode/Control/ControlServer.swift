import ConfabClient
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
    /// A request line longer than this closes the connection.
    public static let maxLineBytes = 256 * 1024

    private let server: NIOAsyncChannel<NIOAsyncChannel<[ByteBuffer], ByteBuffer>, Never>
    public let path: String

    public static func socketPath(_ directory: DataDirectory) -> String {
        directory.controlSocket.path
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
                    // A connection accepted just as the socket closes would be handed to
                    // nobody, and NIO traps on such a channel dropped unfinished: it is
                    // closed here instead, before it becomes one. The socket closes on the
                    // one thread of this group, the thread this runs on, and between this
                    // check and the hand-over no close can run.
                    guard channel.parent?.isActive == true else {
                        channel.close(promise: nil)
                        throw ChannelError.ioOnClosedChannel
                    }
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

    /// Serves connections, each on its own child task, until cancelled or closed. Every
    /// connection the socket accepted is finished, served or not: cancelling the loop that
    /// takes them while some wait in its buffer would drop those, and NIO traps on an
    /// unfinished connection dropped. So cancelling closes the socket, and the loop, which
    /// runs on where cancelling does not reach, ends once it has taken and closed every
    /// connection accepted before that; then the connections being served are cancelled.
    func run(messenger: LocalMessenger, logger: Logger) async {
        let accepting = Task { await accept(messenger: messenger, logger: logger) }
        await withTaskCancellationHandler {
            await accepting.value
        } onCancel: {
            server.channel.close(promise: nil)
        }
    }

    private func accept(messenger: LocalMessenger, logger: Logger) async {
        do {
            try await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            guard server.channel.isActive else {
                                // Accepted as the socket closed: nothing more is answered.
                                group.addTask { try? await connection.executeThenClose { _, _ in } }
                                continue
                            }
                            group.addTask { await Self.serve(connection, messenger: messenger, logger: logger) }
                        }
                    } catch {
                        logger.debug("control socket closed: \(error)")
                    }
                    // The socket is closed and every connection it accepted taken: those
                    // still served (watchers, say) end with it.
                    group.cancelAll()
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
            try? await connection.executeThenClose { _, _ in }
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
                        let operation: any ConfabOperation
                        switch envelope.request {
                        case .watch(let conversation):
                            // Nothing more is asked on a watching connection.
                            let events = try await messenger.events(for: conversation)
                            try await outbound.write(line(ControlResponse.success(ControlEmpty(), id: envelope.id)))
                            try await stream(events, to: outbound, until: batches)
                            return
                        case .operation(let asked):
                            operation = asked
                        }
                        if let run = sendRun(requests), run.sends.count > 1 {
                            requests.removeFirst(run.sends.count)
                            try await outbound.write(
                                contentsOf: await answer(run.sends, to: run.conversation, messenger: messenger))
                        } else {
                            requests.removeFirst()
                            try await outbound.write(await answer(operation, id: envelope.id, messenger: messenger))
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
    private static func sendRun(
        _ requests: ArraySlice<Result<ControlEnvelope, any Error>>
    ) -> (conversation: ConversationID, sends: [(id: Int?, send: Operations.Send)])? {
        var run: [(id: Int?, send: Operations.Send)] = []
        var target: ConversationID?
        for request in requests {
            guard case .success(let envelope) = request, case .operation(let operation) = envelope.request,
                let send = operation as? Operations.Send, case .conversation(let id) = send.target, send.replyTo == nil,
                target == nil || target == id
            else { break }
            target = id
            run.append((envelope.id, send))
        }
        return target.map { ($0, run) }
    }

    /// Sends stored together; if the lot is refused (one empty line, say), each is tried
    /// alone so every request gets its own answer.
    private static func answer(
        _ sends: [(id: Int?, send: Operations.Send)], to conversation: ConversationID, messenger: LocalMessenger
    ) async -> [ByteBuffer] {
        if let sent = try? await messenger.send(sends.map(\.send.text), to: conversation) {
            return zip(sent, sends).map { reply($0, $1.id) }
        }
        var answers: [ByteBuffer] = []
        for (id, send) in sends { answers.append(await answer(send, id: id, messenger: messenger)) }
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

    /// One operation, answered by its own handler: no list of methods here.
    private static func answer(
        _ operation: any ConfabOperation, id: Int?, messenger: LocalMessenger
    ) async
        -> ByteBuffer
    {
        do {
            return try await perform(operation, on: messenger, id: id)
        } catch {
            return line(ControlResponse<ControlEmpty>.failure("\(error)", id: id))
        }
    }

    private static func perform<Operation: ConfabOperation>(
        _ operation: Operation, on messenger: LocalMessenger, id: Int?
    ) async throws -> ByteBuffer {
        reply(try await operation.perform(on: messenger), id)
    }

    /// Why a request line was refused, in terms of the request, never a Swift dump.
    public static func describe(_ error: any Error) -> String {
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
