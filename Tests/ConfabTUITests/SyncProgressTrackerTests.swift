import Testing

@testable import ConfabTUI

@Suite struct SyncProgressTrackerTests {
    @Test func progressCountsUpAsTheOutstandingEntriesCountDown() {
        var tracker = SyncProgressTracker()
        #expect(tracker.update(outstanding: 0) == (0, 0))
        #expect(tracker.update(outstanding: 5_000) == (0, 5_000))
        #expect(tracker.update(outstanding: 3_766) == (1_234, 5_000))
        // A peer announces more while the sync runs: the total grows, what arrived stays.
        #expect(tracker.update(outstanding: 4_766) == (1_234, 6_000))
        #expect(tracker.update(outstanding: 1) == (5_999, 6_000))
        // Done: nothing to show, and the next sync starts from zero.
        #expect(tracker.update(outstanding: 0) == (0, 0))
        #expect(tracker.update(outstanding: 10) == (0, 10))
    }
}
