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
        /// The hold registered with the pool, if reading waits for it.
        var pooled: UInt64?
    }

    let limit: InboxLimit
    /// The node's bound over every session's inbox together, if any.
    let pool: InboxPool?
    private let state = NIOLockedValueBox(State())

    init(limit: InboxLimit, pool: InboxPool? = nil) {
        self.limit = limit
        self.pool = pool
    }

    var outstanding: (messages: Int, bytes: Int) { state.withLockedValue { ($0.messages, $0.bytes) } }

    /// Whether the session's next read waits for its consumer (or the node's pool) now. Set
    /// only once everything the last read brought has been delivered, so what the delegate
    /// has then is all it gets until something is consumed.
    var holdsReadingNow: Bool { state.withLockedValue { $0.resume != nil || $0.pooled != nil } }

    func delivered(_ message: SessionMessage) {
        let bytes = message.approximateBytes
        state.withLockedValue { state in
            state.messages += 1
            state.bytes += bytes
        }
        pool?.add(bytes)
    }

    func consumed(_ message: SessionMessage) {
        let bytes = message.approximateBytes
        let resume: (call: (@Sendable () -> Void)?, counted: Int) = state.withLockedValue { state in
            // Never below zero: a consumer that reports a message twice must not buy room.
            let counted = min(bytes, state.bytes)
            state.messages = max(0, state.messages - 1)
            state.bytes -= counted
            guard !isFull(state) else { return (nil, counted) }
            defer { state.resume = nil }
            return (state.resume, counted)
        }
        // Only what this inbox counted leaves the pool: a message reported twice takes
        // nothing from the other sessions' share.
        pool?.remove(resume.counted)
        resume.call?()
    }

    /// False when reading may go on. True when the inbox is full: `resume` is then called
    /// once, from the thread that consumes enough, unless `cancelHold` comes first.
    /// Also true while the node's pool is full: `resume` is then called once the node has
    /// consumed below the pool's bound.
    func holdsReading(until resume: @escaping @Sendable () -> Void) -> Bool {
        state.withLockedValue { state in
            if isFull(state) {
                state.resume = resume
                return true
            }
            guard let token = pool?.hold(until: resume) else { return false }
            state.pooled = token
            return true
        }
    }

    func cancelHold() {
        let token: UInt64? = state.withLockedValue { state in
            state.resume = nil
            defer { state.pooled = nil }
            return state.pooled
        }
        if let token { pool?.cancel(token) }
    }

    private func isFull(_ state: State) -> Bool {
        state.messages >= limit.messages || state.bytes >= limit.bytes
    }
}
