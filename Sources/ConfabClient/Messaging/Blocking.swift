import Dispatch

/// Work that blocks a thread for long (encrypting a large file) runs on a thread of its
/// own, not on the few the concurrency runtime shares with the node.
public enum Blocking {
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
