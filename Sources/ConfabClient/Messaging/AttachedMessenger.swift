import ConfabModel
import ConfabStore
import Foundation

/// The messenger of a process attached to the `confab up` serving its data directory: every
/// operation but a read is a request on the node's control socket (Protocol.md §13),
/// answered there by the node's own `LocalMessenger`; reads are answered from the shared
/// store (`perform`). Requests share one connection; each `events` stream has
/// its own. Messages in events are read back from the shared store.
public final class AttachedMessenger: Messenger {
    private let local: Profile
    private let connection: ControlConnection

    /// Connects to the node, or throws `ClientError.notRunning` when none serves `local`.
    public init(local: Profile) async throws {
        self.local = local
        connection = try ControlConnection(local.directory)
    }

    public var reachesNode: Bool { true }

    /// Whether the node serves this connection, at the least cost to it: an empty line,
    /// which it answers (Protocol.md §13 answers every line, one that is no request too)
    /// without reading its store or asking its engine, as a status would. A node that is
    /// stopping closes the connections it accepted instead.
    public func isServed() async -> Bool {
        (try? await connection.call("")) != nil
    }

    /// Every operation alike: its request, and its answer read as its own type. A read is
    /// the exception, answered here from the store this process has open — the node's own
    /// file (WAL: what the node committed is what is read), so the answer is the node's:
    /// a chat's list and history then show at once even while the node is busy with a large
    /// sync, and reading costs the node nothing. The socket answers reads all the same
    /// (`askNode`), for scripts and front ends with no store of their own.
    public func perform<Operation: ConfabOperation>(_ operation: Operation) async throws -> Operation.Answer {
        if Operation.self is any ReadOperation.Type {
            return try await operation.perform(on: LocalMessenger(local: local))
        }
        return try await askNode(operation)
    }

    /// The node's own answer over the control socket, a read's included.
    public func askNode<Operation: ConfabOperation>(_ operation: Operation) async throws -> Operation.Answer {
        try await call(.operation(operation), as: Operation.Answer.self)
    }

    /// Events on a connection of their own; the stream ends when the node stops.
    public func events(for conversation: ConversationID?) async throws -> AsyncStream<NodeEvent> {
        let wire = try await wireEvents(for: conversation)
        let store = local.store
        return AsyncStream(bufferingPolicy: .bufferingNewest(10_000)) { continuation in
            let task = Task {
                for await event in wire {
                    if let translated = event.nodeEvent(store: store) { continuation.yield(translated) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The raw events, as `confab watch --json` prints them.
    public func wireEvents(for conversation: ConversationID?) async throws -> AsyncStream<ControlEvent> {
        let watch = try ControlConnection(local.directory)
        _ = try await Self.call(.watch(conversation), as: ControlEmpty.self, on: watch)
        return AsyncStream(bufferingPolicy: .bufferingNewest(10_000)) { continuation in
            let task = Task {
                for await line in watch.unsolicited {
                    if let event = try? JSONOutput.decoder().decode(ControlEvent.self, from: line) {
                        continuation.yield(event)
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                task.cancel()
                watch.close()
            }
        }
    }

    public func close() async {
        connection.close()
    }

    private func call<Result: Codable & Sendable>(_ request: ControlRequest, as: Result.Type) async throws -> Result {
        try await Self.call(request, as: Result.self, on: connection)
    }

    private static func call<Result: Codable & Sendable>(
        _ request: ControlRequest, as: Result.Type, on connection: ControlConnection
    ) async throws -> Result {
        let line = try JSONOutput.line(ControlEnvelope(id: nil, request: request))
        let data = try await connection.call(line)
        let response = try JSONOutput.decoder().decode(ControlResponse<Result>.self, from: data)
        guard response.v == ControlEnvelope.version else {
            throw ClientError.control(
                "the running node speaks control protocol version \(response.v), this confab speaks \(ControlEnvelope.version) — use the confab binary that matches the node"
            )
        }
        if response.ok, let result = response.result { return result }
        // An answer that may be nothing (a message not held here) is `"result": null`.
        if response.ok, let nothing = try? JSONOutput.decoder().decode(Result.self, from: Data("null".utf8)) {
            return nothing
        }
        throw ClientError.control(response.error ?? "the node refused \(request.method)")
    }
}
