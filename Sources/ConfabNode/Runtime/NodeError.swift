/// Why a node could not start or serve. Messages say what happened and what to do.
public struct NodeError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case alreadyRunning(String, pid: String)
        case lockFailed(String, String)
        case badAddress(String, String)
    }

    private let reason: Reason

    static func alreadyRunning(_ path: String, pid: String) -> NodeError {
        NodeError(reason: .alreadyRunning(path, pid: pid))
    }
    static func lockFailed(_ path: String, _ why: String) -> NodeError { NodeError(reason: .lockFailed(path, why)) }
    public static func badAddress(_ text: String, _ why: String) -> NodeError {
        NodeError(reason: .badAddress(text, why))
    }

    public var description: String {
        switch reason {
        case .alreadyRunning(let path, let pid):
            return "a node is already running for \(path) (pid \(pid)); stop it first, or use --data DIR"
        case .lockFailed(let path, let why):
            return "cannot lock \(path): \(why)"
        case .badAddress(let text, let why):
            return "\"\(text)\" is not a usable address: \(why)"
        }
    }
}
