import Dispatch
import Foundation

/// Taking in a batch costs most in work that each entry needs alone (decoding, and checking
/// the signatures of chain tops), so it runs on every core before the write transaction.
enum ParallelMap {
    /// `transform` of each element, in order; on every core once there are enough of them
    /// to be worth the threads.
    static func map<Element: Sendable, Result: Sendable>(
        _ items: [Element], minimum: Int = 32, _ transform: @Sendable (Element) -> Result
    ) -> [Result] {
        guard items.count >= minimum else { return items.map(transform) }
        let results = ResultSlots<Result>(count: items.count)
        let chunks = min(items.count, cores * 4)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var index = chunk
            while index < items.count {
                results.set(index, transform(items[index]))
                index += chunks
            }
        }
        return results.values
    }

    /// Read once: asking the system costs as much as decoding an entry.
    private static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Each slot is written by exactly one iteration and read only after
    /// `concurrentPerform` returns, which is why unchecked sendability is sound here. The
    /// slots live in memory allocated once: writing through an Array from several threads,
    /// even to distinct elements, is a mutation of the array itself and races (it crashed
    /// under load, and ThreadSanitizer reports it).
    private final class ResultSlots<Value>: @unchecked Sendable {
        private let storage: UnsafeMutableBufferPointer<Value?>

        init(count: Int) {
            storage = .allocate(capacity: count)
            storage.initialize(repeating: nil)
        }

        deinit {
            storage.deinitialize()
            storage.deallocate()
        }

        func set(_ index: Int, _ value: Value) {
            storage[index] = value
        }

        var values: [Value] { storage.map { $0! } }
    }
}
