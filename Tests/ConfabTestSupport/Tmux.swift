import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
    public func start(
        session: String, width: Int, height: Int, command: String, environment: [String: String] = [:]
    )
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

    /// A tmux format of the session's pane: "#{alternate_on}" is 1 while the alternate
    /// screen is shown, "#{cursor_flag}" 1 while the cursor is visible.
    public func value(_ format: String, of session: String) throws -> String {
        try output(["display-message", "-p", "-t", session, format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Closes the session's window as a person closes a terminal: the program in it gets
    /// SIGHUP and its terminal goes away.
    public func close(_ session: String) throws {
        try run(["kill-session", "-t", session])
    }

    public func resize(_ session: String, width: Int, height: Int) throws {
        try run(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    /// The visible screen, one string per row.
    public func screen(_ session: String) throws -> [String] {
        var rows = try output(["capture-pane", "-p", "-t", session]).components(separatedBy: "\n")
        if rows.last == "" { rows.removeLast() }
        return rows
    }

    /// Waits until the screen satisfies `condition`; on timeout the error shows the screen.
    /// Sleeps without holding a thread: tests share a small pool with async tests whose
    /// own timeouts a blocked pool would trip.
    @discardableResult
    public func waitFor(
        _ session: String, timeout: TimeInterval = 30, _ what: String, _ condition: ([String]) -> Bool
    ) async throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String] = []
        while Date() < deadline {
            last = try screen(session)
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ConfabBinary.Failure(
            "timed out after \(Int(timeout)) s waiting for \(what); screen of \(session):\n"
                + last.joined(separator: "\n"))
    }

    /// Waits until `text` is on the screen.
    @discardableResult
    public func waitFor(_ session: String, text: String, timeout: TimeInterval = 30) async throws -> [String] {
        try await waitFor(session, timeout: timeout, "\"\(text)\"") { $0.contains { $0.contains(text) } }
    }

    /// Stops this test's tmux server and every process it started. Each pane's process
    /// group is sent SIGTERM first: tmux 3.3's kill-server leaves panes whose programs
    /// are still running, and the server with them. An interactive shell ignores SIGTERM,
    /// and its jobs have process groups of their own: the shell is killed, and the kernel
    /// hangs up its jobs.
    public func stop() {
        let panes = (try? output(["list-panes", "-a", "-F", "#{pane_pid}"])) ?? ""
        for pid in panes.split(separator: "\n").compactMap({ Int32($0) }) where pid > 1 {
            kill(-pid, SIGTERM)
            kill(pid, SIGKILL)
        }
        _ = try? run(["kill-server"])
    }

    deinit { stop() }

    private func run(_ arguments: [String]) throws {
        _ = try output(arguments)
    }

    @discardableResult
    private func output(_ arguments: [String]) throws -> String {
        let capture = socket + ".\(UUID().uuidString).out"
        defer { unlink(capture) }
        let status = try Self.spawnAndWait(["tmux", "-S", socket] + arguments, output: capture)
        let text = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw ConfabBinary.Failure("tmux \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
        return text
    }

    /// posix_spawn rather than Foundation's Process: the tmux server that `new-session`
    /// forks would inherit Process's descriptors (its exit-watching socket, pipes of
    /// other tests running in parallel) and keep them open for its whole life, so Process
    /// would never see the client exit. Here the child gets /dev/null, the output file,
    /// and nothing else.
    static func spawnAndWait(_ arguments: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        guard let closeFrom = closeFromAction else {
            throw ConfabBinary.Failure("this C library has no posix_spawn_file_actions_addclosefrom_np")
        }
        _ = closeFrom(&actions, 3)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw ConfabBinary.Failure("could not start \(arguments[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc ≥ 2.34 has it, but Swift's Glibc module does not export it.
    private static let closeFromAction: CloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
