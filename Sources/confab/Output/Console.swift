import ConfabTUI
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where output goes, and what the terminal can do.
enum Console {
    static func out(_ text: String) {
        StandardStreams.out(text + "\n")
    }

    static func err(_ text: String) {
        StandardStreams.err(text + "\n")
    }

    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Colour only for a terminal, and never when NO_COLOR is set (no-color.org).
    static var useColor: Bool {
        stdoutIsTerminal && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    static var width: Int {
        var size = winsize()
        if stdoutIsTerminal, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 {
            return Int(size.ws_col)
        }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 20 {
            return columns
        }
        return 80
    }

    /// Asks a yes/no question on the terminal; anything but y/yes is no.
    static func confirm(_ question: String) -> Bool {
        StandardStreams.err(question + " ")
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

/// ANSI styling that disappears when colour is off.
enum Style {
    static func bold(_ s: String) -> String { wrap(s, "1") }
    static func dim(_ s: String) -> String { wrap(s, "2") }
    static func accent(_ s: String) -> String { wrap(s, "36") }
    static func badge(_ s: String) -> String { wrap(s, "1;97;44") }

    private static func wrap(_ s: String, _ code: String) -> String {
        Console.useColor ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
    }
}
