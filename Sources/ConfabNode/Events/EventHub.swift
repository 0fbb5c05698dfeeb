import ConfabClient
import ConfabModel
import ConfabStore
import ConfabSync
import NIOConcurrencyHelpers

/// Hands what the node did to everyone watching (the chat, `confab watch`, the control
/// socket): one stream per watcher, each buffering at most 10,000 events.
final class EventHub: Sendable {
    private struct State {
        var watchers: [UInt64: AsyncStream<NodeEvent>.Continuation] = [:]
        var next: UInt64 = 0
        /// The last status reported for each of my messages: only changes are events.
        var reported: [ConversationID: [UInt64: DeliveryStatus]] = [:]
        var finished = false
    }

    private let state = NIOLockedValueBox(State())

    /// Events from now on, until the stream is dropped or the node stops.
    func subscribe() -> AsyncStream<NodeEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: NodeEvent.self, bufferingPolicy: .bufferingNewest(10_000))
        let id: UInt64? = state.withLockedValue { state in
            guard !state.finished else { return nil }
            state.next += 1
            state.watchers[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { _ = $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    var hasWatchers: Bool { state.withLockedValue { !$0.watchers.isEmpty } }

    func emit(_ event: NodeEvent) {
        for watcher in state.withLockedValue({ Array($0.watchers.values) }) { watcher.yield(event) }
    }

    /// The messages an engine output stored, and the statuses of mine it changed. `shown`:
    /// messages of mine as the store wrote them, published as they are; others are read.
    func publish(_ output: SyncOutput, store: ConfabStore, shown: [ChatMessage] = []) {
        guard hasWatchers else { return }
        var written: [ShownKey: ChatMessage] = [:]
        for message in shown {
            written[ShownKey(conversation: message.conversationID, ref: message.ref)] = message
        }
        // A read on another of my person's devices moved my read marks (Protocol.md §20.14):
        // the badge front ends show is read again.
        let readElsewhere = output.appended.filter { $0.kind == .receipt && $0.author != store.me }
        if !readElsewhere.isEmpty, let mine = try? store.myDevices() {
            for conversation in Set(readElsewhere.filter { mine.contains($0.author) }.map(\.conversationID)).sorted() {
                emit(.changed(conversation))
            }
        }
        for entry in output.appended {
            switch entry.body {
            case .message, .file:
                let key = ShownKey(
                    conversation: entry.conversationID, ref: MessageRef(author: entry.author, seq: entry.seq))
                if let message = written[key]
                    ?? (try? store.message(entry.conversationID, author: entry.author, seq: entry.seq))
                {
                    emit(.message(message))
                }
            case .edit(let target, _), .unsend(let target):
                // The message acted on, as it now reads (an edit whose text did not open
                // leaves it as it was, and says so by the absence of `editedAt`).
                if let message = try? store.message(entry.conversationID, author: entry.author, seq: target) {
                    emit(entry.kind == .edit ? .edited(message) : .deleted(message))
                }
            case .react:
                // Only a reaction that decides its row now (one that opened and names a
                // message in its past), and only on a message held here.
                if let (target, change) = try? store.reaction(
                    in: entry.conversationID, reactor: entry.author, seq: entry.seq),
                    let message = try? store.message(entry.conversationID, author: target.author, seq: target.seq)
                {
                    emit(.reaction(message, change))
                }
            case .members:
                if let line = try? store.membershipLine(entry.conversationID, author: entry.author, seq: entry.seq) {
                    emit(.members(line))
                }
            default:
                break
            }
        }
        for (person, listSeqs) in output.deviceListsTaken {
            for line in (try? store.deviceLines(of: person, listSeqs: listSeqs)) ?? [] { emit(.members(line)) }
        }
        // Only changes: a receipt covers many messages, most of which moved long ago.
        for conversation in output.statusChanged.sorted() {
            let statuses = ((try? store.myStatuses(conversation)) ?? [:]).sorted { $0.key < $1.key }
            let changed = state.withLockedValue { state in
                statuses.filter { seq, status in
                    guard state.reported[conversation]?[seq] != status else { return false }
                    state.reported[conversation, default: [:]][seq] = status
                    return true
                }
            }
            for (seq, status) in changed { emit(.status(conversation: conversation, seq: seq, status: status)) }
        }
    }

    private struct ShownKey: Hashable {
        let conversation: ConversationID
        let ref: MessageRef
    }

    /// Ends every stream; later subscribers get one that is already over.
    func finish() {
        let watchers = state.withLockedValue { state in
            state.finished = true
            defer { state.watchers = [:] }
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.finish() }
    }
}
