/// Waiting on a node's events with a ceiling: `--wait` and `save` give up after their
/// `--timeout` rather than wait for ever.
enum Deadline {
    /// What `body` returns, or nil when it has not returned within `seconds` (it is then
    /// cancelled).
    static func within<T: Sendable>(
        _ seconds: Double, _ body: @escaping @Sendable () async throws -> T?
    ) async throws
        -> T?
    {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}
