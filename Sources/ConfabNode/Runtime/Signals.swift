import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM, so a node shuts down cleanly (goodbyes sent) when stopped
/// from a terminal or by systemd.
public enum Signals {
    public static func waitForTermination() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let once = Once(continuation)
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { once.resume(signalNumber) }
                source.resume()
                Retained.sources.withLock { $0.append(source) }
            }
        }
    }

    private final class Once: @unchecked Sendable {
        // Guarded by `lock`: signals may arrive on several threads at once.
        private var continuation: CheckedContinuation<Int32, Never>?
        private let lock = NSLock()

        init(_ continuation: CheckedContinuation<Int32, Never>) { self.continuation = continuation }

        func resume(_ value: Int32) {
            lock.lock()
            let pending = continuation
            continuation = nil
            lock.unlock()
            pending?.resume(returning: value)
        }
    }

    private enum Retained {
        static let sources = Mutex<[any DispatchSourceSignal]>([])
    }
}

/// A minimal lock-protected box (Synchronization's Mutex needs newer deployment targets on
/// some platforms; this keeps the code portable).
final class Mutex<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
