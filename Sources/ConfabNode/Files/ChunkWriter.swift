import ConfabStore
import ConfabSync
import Dispatch
import NIOConcurrencyHelpers

/// Writes checked chunks off the node's isolation, on one thread of its own, so that a
/// slow disk never holds up messages. Chunks handed over while a batch is being written
/// go together in the next batch: one sync per file per batch, however fast they come.
final class ChunkWriter: Sendable {
    private struct State {
        var pending: [FileOutput.ChunkWrite] = []
        var draining = false
    }

    private let store: ConfabStore
    private let queue = DispatchQueue(label: "confab.files.writer")
    private let state = NIOLockedValueBox(State())
    private let done: @Sendable ([ChunkWrites.Result]) -> Void

    init(store: ConfabStore, done: @escaping @Sendable ([ChunkWrites.Result]) -> Void) {
        self.store = store
        self.done = done
    }

    func submit(_ writes: [FileOutput.ChunkWrite]) {
        guard !writes.isEmpty else { return }
        let start = state.withLockedValue { state in
            state.pending += writes
            defer { state.draining = true }
            return !state.draining
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        while true {
            let batch = state.withLockedValue { state in
                defer { state.pending = [] }
                if state.pending.isEmpty { state.draining = false }
                return state.pending
            }
            guard !batch.isEmpty else { return }
            done(ChunkWrites.perform(batch, in: store))
        }
    }
}
