import ConfabWire
import NIOConcurrencyHelpers

/// How much of what a session delivered its delegate may leave unconsumed before the session
/// stops reading from the socket.
public struct InboxLimit: Sendable, Equatable {
    public var messages: Int
    public var bytes: Int

    public init(messages: Int = 64, bytes: Int = 8 << 20) {
        precondition(messages > 0 && bytes > 0, "an inbox limit must let something through")
        self.messages = messages
        self.bytes = bytes
    }
}

/// What a session delivered and its delegate has not consumed yet. The event loop adds to it
/// and asks it whether to read; the delegate's consumer, on any thread, takes from it, and
/// reading resumes from there once it is back under the limit.
final class SessionInbox: Sendable {
    private struct State {
        var messages = 0
        var bytes = 0
        var resume: (@Sendable () -> Void)?
    }

    let limit: InboxLimit
    private let state = NIOLockedValueBox(State())

    init(limit: InboxLimit) {
        self.limit = limit
    }

    var outstanding: (messages: Int, bytes: Int) { state.withLockedValue { ($0.messages, $0.bytes) } }

    func delivered(_ message: SessionMessage) {
        let bytes = message.approximateBytes
        state.withLockedValue { state in
            state.messages += 1
            state.bytes += bytes
        }
    }

    func consumed(_ message: SessionMessage) {
        let bytes = message.approximateBytes
        let resume: (@Sendable () -> Void)? = state.withLockedValue { state in
            // Never below zero: a consumer that reports a message twice must not buy room.
            state.messages = max(0, state.messages - 1)
            state.bytes = max(0, state.bytes - bytes)
            guard !isFull(state) else { return nil }
            defer { state.resume = nil }
            return state.resume
        }
        resume?()
    }

    /// False when reading may go on. True when the inbox is full: `resume` is then called
    /// once, from the thread that consumes enough, unless `cancelHold` comes first.
    func holdsReading(until resume: @escaping @Sendable () -> Void) -> Bool {
        state.withLockedValue { state in
            guard isFull(state) else { return false }
            state.resume = resume
            return true
        }
    }

    func cancelHold() {
        state.withLockedValue { $0.resume = nil }
    }

    private func isFull(_ state: State) -> Bool {
        state.messages >= limit.messages || state.bytes >= limit.bytes
    }
}
