/// How many device lists go one way on one session in a minute (Protocol.md §20.9): a window
/// of a minute that the first list after the last window opens, and at most `limit` lists
/// in it. Verifying a list costs up to 256 signatures, so a peer is held to a few a second
/// on average, whatever it sends.
struct DeviceListPace {
    static let window: Duration = .seconds(60)
    let limit: Int
    private var opened: ContinuousClock.Instant?
    private var taken = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether one more list may go now; it is counted if so.
    mutating func take(at now: ContinuousClock.Instant) -> Bool {
        if let opened, now - opened < Self.window {
            guard taken < limit else { return false }
        } else {
            opened = now
            taken = 0
        }
        taken += 1
        return true
    }
}
