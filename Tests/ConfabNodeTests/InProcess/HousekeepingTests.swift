import Testing

@testable import ConfabNode

/// The node's timed duties: each runs at its own period on the one 300 ms tick.
@Suite struct HousekeepingTests {
    /// Five minutes of ticks, counted without waiting.
    @Test func eachDutyRunsAtItsPeriod() {
        var schedule = Housekeeping()
        var runs: [Housekeeping.Duty: Int] = [:]
        for _ in 0..<1000 {
            for duty in schedule.next() { runs[duty, default: 0] += 1 }
        }
        // Every tick: what a person waits on (receipts, another process's writes, presence).
        for duty in [Housekeeping.Duty.engineTimers, .fileTimers, .externalWrites, .presence, .checkpoint] {
            #expect(runs[duty] == 1000, "\(duty)")
        }
        #expect(runs[.syncReceived] == 333)
        #expect(runs[.chosenPeers] == 100)
        #expect(runs[.pruneStrangers] == 1)
    }

    @Test func receivedEntriesAreSyncedWithinASecond() {
        #expect(Housekeeping.Duty.syncReceived.period < .seconds(1))
        var schedule = Housekeeping()
        let firstThree = (0..<3).map { _ in schedule.next().contains(.syncReceived) }
        #expect(firstThree == [false, false, true])
    }
}
