import NIOConcurrencyHelpers

/// Failed logins, at most `burst` at once and one more every `interval`: a page guessing a
/// token or a password gets a handful of tries a minute, never thousands.
final class LoginLimiter: Sendable {
    private struct State {
        var allowance: Double
        var updated: ContinuousClock.Instant
    }

    private let burst: Double
    private let perSecond: Double
    private let state: NIOLockedValueBox<State>

    init(burst: Int = 5, interval: Duration = .seconds(12)) {
        self.burst = Double(burst)
        perSecond = 1 / (Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
        state = NIOLockedValueBox(State(allowance: Double(burst), updated: .now))
    }

    /// Whether a login may be tried now (none is, while failures used the allowance up).
    func mayTry(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLockedValue { state in
            refill(&state, now: now)
            return state.allowance >= 1
        }
    }

    func failed(now: ContinuousClock.Instant = .now) {
        state.withLockedValue { state in
            refill(&state, now: now)
            state.allowance = max(0, state.allowance - 1)
        }
    }

    private func refill(_ state: inout State, now: ContinuousClock.Instant) {
        let elapsed = now - state.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        state.allowance = min(burst, state.allowance + max(0, seconds) * perSecond)
        state.updated = now
    }
}
