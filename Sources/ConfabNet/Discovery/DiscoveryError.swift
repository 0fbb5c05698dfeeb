/// A `DiscoveryService` was used out of turn.
public struct DiscoveryError: Error, Equatable, Sendable, CustomStringConvertible {
    private enum Reason: Equatable, Sendable {
        case alreadyStarted
        case stopped
    }

    private let reason: Reason

    /// `start()` was called twice.
    public static let alreadyStarted = DiscoveryError(reason: .alreadyStarted)

    /// `start()` was called after `stop()`; a stopped service cannot be restarted.
    public static let stopped = DiscoveryError(reason: .stopped)

    public var description: String {
        switch reason {
        case .alreadyStarted: return "discovery already started"
        case .stopped: return "discovery was stopped"
        }
    }
}
