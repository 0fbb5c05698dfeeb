#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A terminal operation failed; says which system call and why.
public struct TerminalError: Error, Equatable, Sendable, CustomStringConvertible {
    private enum Reason: Equatable, Sendable {
        case notATerminal
        case systemCall(String, errno: Int32)
    }

    private let reason: Reason

    /// The input is not a terminal (a pipe or a file), so full-screen mode is impossible.
    public static let notATerminal = TerminalError(reason: .notATerminal)

    static func systemCall(_ name: String, errno: Int32) -> TerminalError {
        errno == ENOTTY ? .notATerminal : TerminalError(reason: .systemCall(name, errno: errno))
    }

    /// The reader of a pipe went away (`confab list | head -1`).
    var isBrokenPipe: Bool { reason == .systemCall("write", errno: EPIPE) }

    public var description: String {
        switch reason {
        case .notATerminal:
            return "not a terminal; run confab in a terminal, or use the command-line commands"
        case .systemCall(let name, let errno):
            return "\(name) failed: \(String(cString: strerror(errno)))"
        }
    }
}
