import ConfabModel

/// Which of my entries written together get a signature of their own (Protocol.md §4.3).
///
/// Signing is most of what writing a message costs, and a signature at the top of a run
/// authenticates every entry below it through the hash chain (§7 step 3). So in a run of my
/// entries committed together, the last one is signed, and before it only as many as keep
/// each stretch of unsigned entries short enough to travel under one signed entry, in one
/// `Entries` message, whatever window cuts it (§12 step 3): at most `Limits.maxUnsignedRun`
/// entries and under `Limits.maxUnsignedRunBytes` bytes before the next signed one.
struct SigningCadence {
    private var run = 0
    private var bytes = 0

    /// Whether the next entry, of `size` encoded bytes, is signed. `last`: nothing of mine
    /// follows it in this commit, so it must be, or my log would end unsigned.
    mutating func signs(size: Int, last: Bool) -> Bool {
        if last || run + 1 > Limits.maxUnsignedRun || bytes + size >= Limits.maxUnsignedRunBytes {
            run = 0
            bytes = 0
            return true
        }
        run += 1
        bytes += size
        return false
    }
}
