import Foundation

/// A value shared between the caller, the input thread and signal handlers. (The
/// Synchronization module's Mutex needs a newer macOS than the package supports.)
final class TerminalLock<Value>: @unchecked Sendable {
    // Guarded by `lock`.
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
