/// Why a front end's request did not reach a node or was refused there. Messages say what
/// happened and what to do.
public struct ClientError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case notRunning(String)
        case control(String)
    }

    private let reason: Reason

    /// No node serves the data directory at `path`.
    public static func notRunning(_ path: String) -> ClientError { ClientError(reason: .notRunning(path)) }
    /// The node refused a request, or its answer made no sense: the message says which.
    public static func control(_ message: String) -> ClientError { ClientError(reason: .control(message)) }

    public var isNotRunning: Bool {
        if case .notRunning = reason { return true }
        return false
    }

    public var description: String {
        switch reason {
        case .notRunning(let path): "no node is running for \(path) — start one with \"confab up\""
        case .control(let message): message
        }
    }
}
