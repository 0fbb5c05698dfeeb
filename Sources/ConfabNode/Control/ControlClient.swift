import ConfabModel
import Foundation
import NIOCore
import NIOPosix

/// Talks to a running node through its control socket (CLI commands, scripts, the TUI).
public enum ControlClient {
    public static func socketPath(_ directory: DataDirectory) -> String {
        directory.url.appendingPathComponent(ControlProtocol.socketName).path
    }

    /// Whether a node seems to serve this data directory (its socket exists).
    public static func mightBeRunning(_ directory: DataDirectory) -> Bool {
        FileManager.default.fileExists(atPath: socketPath(directory))
    }

    /// Tells a running node that a command wrote to `conversation` through the store, so it
    /// offers the new entries at once; does nothing when no node runs.
    public static func notifyIfRunning(_ directory: DataDirectory, conversation: ConversationID) async {
        guard mightBeRunning(directory) else { return }
        _ = try? await request(
            directory, method: "notify", params: ["conversation": conversation.hex], as: ControlProtocol.Empty.self)
    }

    /// One request, one response.
    public static func request<Result: Codable & Sendable>(
        _ directory: DataDirectory, method: String, params: [String: String] = [:], as: Result.Type = Result.self
    ) async throws -> Result {
        var answer: Result?
        try await session(directory, method: method, params: params) { line in
            let response = try JSONOutput.decoder().decode(ControlProtocol.Response<Result>.self, from: Data(line.utf8))
            guard response.ok, let result = response.result else {
                throw NodeError.control(response.error ?? "the node refused \(method)")
            }
            answer = result
            return false
        }
        guard let answer else { throw NodeError.control("the node closed the control connection") }
        return answer
    }

    /// A `watch` stream: `handle` gets each event until it returns false or the node stops.
    public static func watch(
        _ directory: DataDirectory, conversation: String? = nil,
        handle: @escaping (ControlProtocol.Event) async throws -> Bool
    ) async throws {
        var acknowledged = false
        try await session(directory, method: "watch", params: conversation.map { ["conversation": $0] } ?? [:]) {
            line in
            if !acknowledged {
                let response = try JSONOutput.decoder().decode(
                    ControlProtocol.Response<ControlProtocol.Empty>.self, from: Data(line.utf8))
                guard response.ok else { throw NodeError.control(response.error ?? "the node refused watch") }
                acknowledged = true
                return true
            }
            return try await handle(try JSONOutput.decoder().decode(ControlProtocol.Event.self, from: Data(line.utf8)))
        }
    }

    private static func session(
        _ directory: DataDirectory, method: String, params: [String: String],
        onLine: (String) async throws -> Bool
    ) async throws {
        let path = socketPath(directory)
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw NodeError.notRunning(directory.path)
        }
        let request = try JSONOutput.line(ControlProtocol.Request(id: 1, method: method, params: params))
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request + "\n"))
            for try await line in inbound {
                guard try await onLine(String(buffer: line)) else { break }
            }
        }
    }
}
