import Foundation
import NIOConcurrencyHelpers

/// Standard input's lines as they arrive, handed over in batches: everything read since
/// the last call. A fast pipe gives large batches (stored in few transactions), a person
/// typing gives one line at a time (each sent at once).
final class StandardInputLines: Sendable {
    private struct State {
        var lines: [String] = []
        var ended = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())
    /// At most this many lines wait unread: a pipe faster than the node is slowed down, not
    /// held in memory.
    private static let maxWaiting = 8192

    init() {
        let thread = Thread { [state] in
            while let line = readLine() {
                while state.withLockedValue({ $0.lines.count >= Self.maxWaiting }) { usleep(1000) }
                let waiter = state.withLockedValue { state in
                    state.lines.append(line)
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
            state.withLockedValue { state in
                state.ended = true
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
        thread.start()
    }

    /// Every line read since the last call, waiting for at least one; nil at the end.
    func next() async -> [String]? {
        while true {
            let (lines, ended) = state.withLockedValue { state in
                defer { state.lines = [] }
                return (state.lines, state.ended)
            }
            if !lines.isEmpty { return lines }
            if ended { return nil }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLockedValue { state in
                    guard state.lines.isEmpty, !state.ended else { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}
