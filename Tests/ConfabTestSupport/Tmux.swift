import Foundation

/// A private tmux server (its own socket, no user config) for driving the real full-screen
/// chat the way a person does: keys in with send-keys, the screen out with capture-pane.
public final class Tmux: @unchecked Sendable {
    public let socket: String

    public init(directory: URL) {
        socket = directory.appendingPathComponent("tmux.sock").path
    }

    /// Whether tmux is installed (`make test-deps` installs it; CI has it).
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
            || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/tmux")
    }

    /// Starts a detached session running `command` in a shell, `width`×`height`. The shell
    /// stays after the command so tests can see what it leaves behind.
    public func start(session: String, width: Int, height: Int, command: String, environment: [String: String] = [:])
        throws
    {
        let exports = environment.sorted { $0.key < $1.key }.map { "export \($0.key)=\(Self.quote($0.value)); " }
            .joined()
        try run([
            "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)",
            "/bin/sh", "-c", exports + command + "; echo \"[exited $?]\"; stty -a; sleep 600",
        ])
        try run(["set-option", "-t", session, "status", "off"])
    }

    /// Types text literally (no key names).
    public func type(_ text: String, into session: String) throws {
        try run(["send-keys", "-t", session, "-l", text])
    }

    /// Presses keys by tmux name: "Enter", "Escape", "C-k", "M-Enter", "PPage", "Tab", "BTab".
    public func press(_ keys: String..., in session: String) throws {
        try run(["send-keys", "-t", session] + keys)
    }

    public func resize(_ session: String, width: Int, height: Int) throws {
        try run(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    /// The visible screen, one string per row.
    public func screen(_ session: String) throws -> [String] {
        try output(["capture-pane", "-p", "-t", session]).components(separatedBy: "\n")
    }

    /// Waits until the screen satisfies `condition`; on timeout the error shows the screen.
    @discardableResult
    public func waitFor(
        _ session: String, timeout: TimeInterval = 15, _ what: String, _ condition: ([String]) -> Bool
    ) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String] = []
        while Date() < deadline {
            last = try screen(session)
            if condition(last) { return last }
            usleep(100_000)
        }
        throw ConfabBinary.Failure(
            "timed out after \(Int(timeout)) s waiting for \(what); screen of \(session):\n"
                + last.joined(separator: "\n"))
    }

    /// Waits until `text` is on the screen.
    @discardableResult
    public func waitFor(_ session: String, text: String, timeout: TimeInterval = 15) throws -> [String] {
        try waitFor(session, timeout: timeout, "\"\(text)\"") { $0.contains { $0.contains(text) } }
    }

    /// Stops this test's tmux server (and with it every process it started).
    public func stop() {
        _ = try? run(["kill-server"])
    }

    deinit { stop() }

    private func run(_ arguments: [String]) throws {
        _ = try output(arguments)
    }

    @discardableResult
    private func output(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tmux", "-S", socket] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ConfabBinary.Failure(
                "tmux \(arguments.joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
