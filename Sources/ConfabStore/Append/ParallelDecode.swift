import ConfabModel
import ConfabWire
import Dispatch
import Foundation

/// Signature verification dominates the cost of taking in a batch, and each entry verifies
/// independently, so batches are decoded on every core before the write transaction.
enum ParallelDecode {
    static func decode(
        _ batch: [[UInt8]], using decode: @Sendable ([UInt8]) -> Result<Entry, AppendRejection>
    )
        -> [Result<Entry, AppendRejection>]
    {
        guard batch.count >= 32 else { return batch.map(decode) }
        let results = ResultSlots(count: batch.count)
        let chunks = min(batch.count, max(1, ProcessInfo.processInfo.activeProcessorCount) * 4)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var index = chunk
            while index < batch.count {
                results.set(index, decode(batch[index]))
                index += chunks
            }
        }
        return results.values
    }

    /// Each slot is written by exactly one iteration and read only after
    /// `concurrentPerform` returns, which is why unchecked sendability is sound here. The
    /// slots live in memory allocated once: writing through an Array from several threads,
    /// even to distinct elements, is a mutation of the array itself and races (it crashed
    /// under load, and ThreadSanitizer reports it).
    private final class ResultSlots: @unchecked Sendable {
        private let storage: UnsafeMutableBufferPointer<Result<Entry, AppendRejection>?>

        init(count: Int) {
            storage = .allocate(capacity: count)
            storage.initialize(repeating: nil)
        }

        deinit {
            storage.deinitialize()
            storage.deallocate()
        }

        func set(_ index: Int, _ value: Result<Entry, AppendRejection>) {
            storage[index] = value
        }

        var values: [Result<Entry, AppendRejection>] { storage.map { $0! } }
    }
}
