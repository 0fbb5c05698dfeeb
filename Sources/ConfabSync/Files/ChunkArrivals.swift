/// How fast one peer's chunks arrive while some are asked of it: the rate the path to it
/// (the link, or whichever end's CPU is slower) really delivers, which decides how much
/// may be asked at once without making a message sent behind the chunks wait
/// (`FileExchange.queueDelay`). Time with nothing asked is not counted: an idle peer is not
/// a slow one.
struct ChunkArrivals {
    /// Busy time a sample spans at least, so that one chunk's jitter does not swing it.
    static let sampleSpan: Duration = .milliseconds(20)

    private var bytes = 0
    private var busy: Duration = .zero
    /// Since when chunks have been asked without a pause (nil: none is asked now).
    private var since: ContinuousClock.Instant?
    /// Bytes per second, smoothed over the samples so far; nil until the first.
    private(set) var bytesPerSecond: Double?

    /// Chunks were asked at `instant`; if none was asked before, busy time starts now.
    mutating func asked(at instant: ContinuousClock.Instant) {
        if since == nil { since = instant }
    }

    /// Nothing is asked any more (answered, given back or timed out): the busy time stops.
    mutating func idle() {
        since = nil
    }

    /// A chunk of `count` bytes arrived; `more` says whether others are still asked.
    mutating func arrived(_ count: Int, at instant: ContinuousClock.Instant, more: Bool) {
        guard let start = since else { return }
        busy += instant - start
        bytes += count
        since = more ? instant : nil
        guard busy >= Self.sampleSpan else { return }
        let sample = Double(bytes) / (busy / .seconds(1))
        bytesPerSecond = bytesPerSecond.map { ($0 + sample) / 2 } ?? sample
        bytes = 0
        busy = .zero
    }

    /// Bytes that may be asked at once so that what is asked takes at most `delay` to
    /// arrive, at the rate measured; `chunk` (one chunk at least) until there is a rate.
    func budget(delay: Duration, chunk: Int) -> Int {
        guard let bytesPerSecond else { return chunk }
        let bytes = bytesPerSecond * (delay / .seconds(1))
        return max(chunk, Int(min(bytes, Double(Int.max / 2))))
    }
}
