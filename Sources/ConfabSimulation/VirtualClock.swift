import NIOConcurrencyHelpers

/// The simulation's one timeline, which every engine reads as its clock: it moves only
/// when the simulator takes the next event, so timers fire in virtual time.
final class VirtualClock: Sendable {
    private let start = ContinuousClock.now
    private let elapsed = NIOLockedValueBox(Duration.zero)

    /// Time since the simulation began.
    var time: Duration { elapsed.withLockedValue { $0 } }

    var now: ContinuousClock.Instant { start + time }

    func move(to time: Duration) { elapsed.withLockedValue { $0 = time } }
}
