import ConfabClient
import ConfabStore
import ConfabSync
import Foundation

/// Writes checked chunks off the node's isolation, on a thread of its own that yields the
/// CPU to everything else the node does (Protocol.md §17.6): copying chunks into the page
/// cache is a large part of what a receiving node spends per byte, and on a busy machine it
/// should be what waits, not messages. Chunks handed over while a batch is being written go
/// together in the next batch: one sync per file per batch, however fast they come.
final class ChunkWriter: @unchecked Sendable {
    /// The writing thread's nice value on Linux, where a thread has its own: it gets about a
    /// tenth of a core that other work also wants, and all of an idle one.
    static let niceness: Int32 = 10

    private let store: ConfabStore
    private let done: @Sendable ([ChunkWrites.Result]) -> Void
    // Guards everything below; the writing thread waits on it for work.
    private let condition = NSCondition()
    private var pending: [FileOutput.ChunkWrite] = []
    private var started = false
    private var stopping = false

    init(store: ConfabStore, done: @escaping @Sendable ([ChunkWrites.Result]) -> Void) {
        self.store = store
        self.done = done
    }

    /// Queues checked chunks for the next batch; the thread starts with the first ones, so
    /// a node that never receives a file has none.
    func submit(_ writes: [FileOutput.ChunkWrite]) {
        guard !writes.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return }
        pending += writes
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "confab-chunks"
            thread.qualityOfService = .utility
            thread.start()
        }
        condition.signal()
    }

    /// Lets the thread end once what is queued is written (chunks queued later are dropped:
    /// they were never recorded, so they are fetched again).
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        Self.yieldToOtherWork()
        while true {
            condition.lock()
            while pending.isEmpty && !stopping { condition.wait() }
            let batch = pending
            pending = []
            condition.unlock()
            guard !batch.isEmpty else { return }
            done(ChunkWrites.perform(batch, in: store))
        }
    }

    private static func yieldToOtherWork() {
        #if os(Linux)
        // Linux keeps a nice value per thread, and `who` 0 is the calling thread alone
        // (elsewhere it is the whole process, hence only here).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
