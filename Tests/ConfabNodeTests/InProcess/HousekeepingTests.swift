import Testing

@testable import ConfabNode

/// The node's timed duties: each runs at its own period on the one 300 ms tick.
@Suite struct HousekeepingTests {
    /// Five minutes of ticks, counted without waiting.
    @Test func eachDutyRunsAtItsPeriod() {
        var schedule = Housekeeping()
        var runs: [Housekeeping.Duty: Int] = [:]
        for tick in 0..<1000 {
            // A store that commits all the time: every duty runs at its period.
            for duty in schedule.next(store: tick) { runs[duty, default: 0] += 1 }
        }
        // Every tick: what a person waits on (receipts, another process's writes, presence).
        for duty in [Housekeeping.Duty.engineTimers, .fileTimers, .externalWrites, .presence, .checkpoint] {
            #expect(runs[duty] == 1000, "\(duty)")
        }
        #expect(runs[.syncReceived] == 333)
        #expect(runs[.chosenPeers] == 100)
        #expect(runs[.pruneStrangers] == 1)
    }

    /// While the store stands still, what only re-reads it (who is chosen, the block list)
    /// runs once in twenty of its periods; the first period after the store moved, it runs.
    @Test func whatReadsOnlyTheStoreWaitsForTheStoreToMove() {
        var schedule = Housekeeping()
        var chosenRuns: [Int] = []
        var trustRuns = 0
        for tick in 1...1000 {
            let generation = tick < 500 ? 7 : 8
            let due = schedule.next(store: generation)
            if due.contains(.chosenPeers) { chosenRuns.append(tick) }
            if due.contains(.trust) { trustRuns += 1 }
            // What does not only read the store keeps its period.
            #expect(due.contains(.externalWrites))
        }
        // Every 10 ticks is a period: the first runs, then one in 20 periods (200 ticks),
        // and the first period after the store moved at tick 500.
        #expect(chosenRuns == [10, 210, 410, 500, 700, 900])
        #expect(trustRuns == chosenRuns.count)
    }

    /// After an idle sleep of several ticks, each duty whose period ended within it runs
    /// once: the every-tick ones, and the others as their periods come, not once per tick
    /// slept and not skipped.
    @Test func anIdleSleepRunsEachDutyThatCameDueOnce() {
        var schedule = Housekeeping()
        var runs: [Housekeeping.Duty: Int] = [:]
        var sleeps = 0
        while schedule.ticks < 1000 {
            sleeps += 1
            for duty in schedule.next(store: sleeps, elapsed: Housekeeping.idleTicks) { runs[duty, default: 0] += 1 }
        }
        #expect(sleeps == 1000 / Housekeeping.idleTicks)
        #expect(runs[.externalWrites] == sleeps)
        #expect(runs[.chosenPeers] == min(sleeps, 1000 / Housekeeping.Duty.chosenPeers.everyTicks))
        #expect(runs[.syncReceived] == min(sleeps, 1000 / Housekeeping.Duty.syncReceived.everyTicks))
        #expect(runs[.pruneStrangers] == 1)
    }

    @Test func receivedEntriesAreSyncedWithinASecond() {
        #expect(Housekeeping.Duty.syncReceived.period < .seconds(1))
        var schedule = Housekeeping()
        let firstThree = (0..<3).map { _ in schedule.next().contains(.syncReceived) }
        #expect(firstThree == [false, false, true])
    }
}
