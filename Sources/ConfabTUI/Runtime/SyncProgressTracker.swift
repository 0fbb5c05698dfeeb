/// Turns "entries still to receive", sampled now and then, into "received of expected"
/// for one sync: the expected total starts when something is outstanding, grows when more
/// is announced, and resets once nothing is left.
struct SyncProgressTracker: Equatable {
    private(set) var expected = 0
    private var lastOutstanding = 0

    mutating func update(outstanding: Int) -> (received: Int, expected: Int) {
        if outstanding <= 0 {
            expected = 0
            lastOutstanding = 0
            return (0, 0)
        }
        if expected == 0 {
            expected = outstanding
        } else if outstanding > lastOutstanding {
            expected += outstanding - lastOutstanding
        }
        lastOutstanding = outstanding
        return (expected - outstanding, expected)
    }
}
