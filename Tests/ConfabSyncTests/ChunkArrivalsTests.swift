import Testing

@testable import ConfabSync

/// How much a peer may be asked for at once follows how fast its chunks really arrive.
@Suite struct ChunkArrivalsTests {
    let start = ContinuousClock.now

    @Test func untilARateIsMeasuredOneChunkIsAskedAtATime() {
        let arrivals = ChunkArrivals()
        #expect(arrivals.budget(delay: .milliseconds(2), chunk: 262_160) == 262_160)
    }

    @Test func theBudgetIsWhatArrivesInTheDelayAtTheMeasuredRate() {
        var arrivals = ChunkArrivals()
        // 100,000 bytes every millisecond for 40 ms: 100 MB/s.
        arrivals.asked(at: start)
        for index in 1...40 {
            arrivals.arrived(100_000, at: start + .milliseconds(index), more: true)
        }
        #expect(arrivals.budget(delay: .milliseconds(2), chunk: 1_000) == 200_000)
        // Never less than one chunk, however slow.
        #expect(arrivals.budget(delay: .milliseconds(2), chunk: 500_000) == 500_000)
    }

    @Test func timeWithNothingAskedIsNotCountedAgainstThePeer() {
        var arrivals = ChunkArrivals()
        arrivals.asked(at: start)
        arrivals.arrived(100_000, at: start + .milliseconds(10), more: false)
        // A second with nothing asked, then the same again.
        let later = start + .seconds(1)
        arrivals.asked(at: later)
        arrivals.arrived(100_000, at: later + .milliseconds(10), more: false)
        // 200,000 bytes in 20 ms of asking: 10 MB/s, not 200,000 bytes a second.
        #expect(arrivals.budget(delay: .milliseconds(10), chunk: 1) == 100_000)
    }

    @Test func aPeerThatSlowsDownIsAskedForLess() {
        var arrivals = ChunkArrivals()
        arrivals.asked(at: start)
        arrivals.arrived(2_000_000, at: start + .milliseconds(20), more: true)  // 100 MB/s
        let fast = arrivals.budget(delay: .milliseconds(2), chunk: 1)
        arrivals.arrived(200_000, at: start + .milliseconds(40), more: true)  // 10 MB/s
        let slower = arrivals.budget(delay: .milliseconds(2), chunk: 1)
        arrivals.arrived(200_000, at: start + .milliseconds(60), more: true)
        #expect(fast == 200_000)
        #expect(slower < fast)
        #expect(arrivals.budget(delay: .milliseconds(2), chunk: 1) < slower)
    }
}
