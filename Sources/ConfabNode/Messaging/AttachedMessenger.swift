import ConfabModel
import ConfabStore
import Foundation
import NIOCore

/// The messenger of a process attached to the `confab up` serving its data directory: every
/// call is a request on the node's control socket (Protocol.md §13), answered there by the
/// node's own `LocalMessenger`. Requests share one connection; each `events` stream has
/// its own. Messages in events are read back from the shared store.
public final class AttachedMessenger: Messenger {
    private let local: Profile
    private let connection: ControlConnection

    /// Connects to the node, or throws `NodeError.notRunning` when none serves `local`.
    public init(local: Profile) async throws {
        self.local = local
        connection = try await ControlConnection(local.directory)
    }

    public func send(_ text: String, to target: MessageTarget, replyTo: MessageRef?) async throws -> SentMessage {
        try await connection.call(.send(text: text, to: target, replyTo: replyTo))
    }

    /// The texts in `send_lines` requests of about 32 KiB of text each (well inside the
    /// control line limit however the JSON escapes them), all written at once and the
    /// answers read in order: one round trip for the lot, one answer line per request.
    public func send(_ texts: [String], to conversation: ConversationID) async throws -> [SentMessage] {
        var chunks: [[String]] = []
        var chunk: [String] = []
        var bytes = 0
        for text in texts {
            if !chunk.isEmpty, bytes + text.utf8.count > Self.linesPerRequestBytes {
                chunks.append(chunk)
                chunk = []
                bytes = 0
            }
            chunk.append(text)
            bytes += text.utf8.count
        }
        if !chunk.isEmpty { chunks.append(chunk) }
        let answers = try await connection.callAll(
            chunks.map { .sendLines(texts: $0, to: conversation) }, as: SentLines.self)
        // An answer is believed only for as many messages as its request carried.
        for (chunk, answer) in zip(chunks, answers) where answer.count != chunk.count {
            throw NodeError.control(
                "the node answered \(answer.count) messages stored for \(chunk.count) sent — look at them with \"confab history\" before sending them again"
            )
        }
        return answers.flatMap(\.messages)
    }

    static let linesPerRequestBytes = 32 * 1024

    public func edit(_ seq: UInt64, in conversation: ConversationID, text: String) async throws -> MessageAction {
        try await connection.call(.edit(conversation: conversation, target: seq, text: text))
    }

    public func changeMembers(
        of conversation: ConversationID, add: [NodeID], remove: [NodeID], shareHistory: Bool
    ) async throws -> MembershipChange {
        try await connection.call(
            .changeMembers(conversation: conversation, add: add, remove: remove, shareHistory: shareHistory))
    }

    public func leave(_ conversation: ConversationID) async throws -> MembershipChange {
        try await connection.call(.leave(conversation))
    }

    public func unsend(_ seq: UInt64, in conversation: ConversationID) async throws -> MessageAction {
        try await connection.call(.unsend(conversation: conversation, target: seq))
    }

    public func react(
        _ emoji: String, to target: MessageRef, in conversation: ConversationID, removed: Bool
    ) async throws -> ReactionSent {
        try await connection.call(.react(conversation: conversation, target: target, emoji: emoji, removed: removed))
    }

    public func sendFile(at path: String, folder: String, to target: MessageTarget) async throws -> SentFile {
        try await connection.call(.sendFile(path: path, folder: folder, to: target))
    }

    public func acceptFile(_ file: FileID) async throws {
        _ = try await connection.call(.acceptFile(file), as: ControlEmpty.self)
    }

    public func create(
        with participants: [NodeID], title: String?, firstMessage: String?
    ) async throws -> CreatedConversation {
        try await connection.call(.create(participants: participants, title: title, firstMessage: firstMessage))
    }

    @discardableResult
    public func markRead(_ conversation: ConversationID) async throws -> Bool {
        try await connection.call(.markRead(conversation))
    }

    public func setFlag(_ flag: LocalFlag, _ value: Bool, on conversation: ConversationID) async throws {
        _ = try await connection.call(.setFlag(flag, value, on: conversation), as: ControlEmpty.self)
    }

    public func delete(_ conversation: ConversationID) async throws {
        _ = try await connection.call(.delete(conversation), as: ControlEmpty.self)
    }

    public func setTrust(_ trust: Peer.Trust, for peer: NodeID) async throws {
        _ = try await connection.call(.setTrust(trust, for: peer), as: ControlEmpty.self)
    }

    public func typing(_ active: Bool, in conversation: ConversationID) async throws {
        _ = try await connection.call(.typing(conversation, active: active), as: ControlEmpty.self)
    }

    public func resync() async throws {
        _ = try await connection.call(.resync, as: ControlEmpty.self)
    }

    public func peers() async throws -> [PeerPresence] {
        try await connection.call(.peers)
    }

    public func status() async throws -> NodeStatus {
        try await connection.call(.status)
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
        let watch = try await ControlConnection(local.directory)
        _ = try await watch.call(.watch(conversation), as: ControlEmpty.self)
        return AsyncStream(bufferingPolicy: .bufferingNewest(10_000)) { continuation in
            let task = Task {
                for await line in watch.unsolicited {
                    if let event = try? JSONOutput.decoder().decode(
                        ControlEvent.self, from: Data(line.readableBytesView))
                    {
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

    /// Another process wrote to `conversation` through the store: the node offers it now.
    public func changed(_ conversation: ConversationID) async throws {
        _ = try await connection.call(.changed(conversation), as: ControlEmpty.self)
    }

    public func close() async {
        connection.close()
    }
}
