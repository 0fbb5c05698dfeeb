import NIOConcurrencyHelpers

/// What all the sessions of one node delivered and the node has not consumed yet, counted
/// together against one bound.
///
/// Each session's inbox is bounded by itself (`InboxLimit`, 4 MiB for a node), which keeps
/// one session's flood from delaying the others but lets memory grow with the number of
/// sessions: 49 busy peers may fill about 200 MiB of one node's inboxes, and as much again
/// in entries decoded beside them. With a pool, a session also stops reading while the
/// node's total is at the pool's bound, and every session held by it reads again once the
/// node has consumed below it.
public final class InboxPool: Sendable {
    private struct State {
        var bytes = 0
        var waiting: [UInt64: @Sendable () -> Void] = [:]
        var next: UInt64 = 0
    }

    public let limit: Int
    private let state = NIOLockedValueBox(State())

    public init(bytes limit: Int) {
        precondition(limit > 0, "an inbox pool must let something through")
        self.limit = limit
    }

    public var bytes: Int { state.withLockedValue { $0.bytes } }
    /// Sessions waiting for the node to consume below the bound.
    var waiters: Int { state.withLockedValue { $0.waiting.count } }

    func add(_ bytes: Int) {
        state.withLockedValue { $0.bytes += bytes }
    }

    /// Takes `bytes` off the total; once it is under the bound, every session waiting is
    /// resumed (each checks again as it reads).
    func remove(_ bytes: Int) {
        let resumes: [@Sendable () -> Void] = state.withLockedValue { state in
            // Never below zero: a consumer that reports a message twice must not buy room.
            state.bytes = max(0, state.bytes - bytes)
            guard state.bytes < limit, !state.waiting.isEmpty else { return [] }
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for resume in resumes { resume() }
    }

    /// Nil when reading may go on. When the pool is full, `resume` is kept, to be called
    /// once the node consumes below the bound, and a token to cancel it is returned: the
    /// check and the registration are one step, so no consumption falls between them.
    func hold(until resume: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLockedValue { state in
            guard state.bytes >= limit else { return nil }
            state.next += 1
            state.waiting[state.next] = resume
            return state.next
        }
    }

    func cancel(_ token: UInt64) {
        state.withLockedValue { _ = $0.waiting.removeValue(forKey: token) }
    }
}
