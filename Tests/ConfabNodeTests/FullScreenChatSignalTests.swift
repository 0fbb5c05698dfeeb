import ConfabTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The full-screen chat gives the terminal back as it found it on every way out that is
/// not `q`: Ctrl+Z (and takes it again on `fg`), a termination signal, a crash signal, the
/// terminal closing. "As it found it" is what `stty -g` prints before and after, the main
/// screen shown and the cursor visible (tmux's own view of its pane).
@Suite struct FullScreenChatSignalTests {
    let root: URL
    let tmux: Tmux

    init() throws {
        try #require(Tmux.isAvailable, "the chat tests need tmux (make test-deps installs it)")
        root = try temporaryRoot()
        tmux = Tmux(directory: root)
    }

    func node() throws -> NodeProcess {
        try NodeProcess.acquainted(["alice"], root: root)[0]
    }

    func chat(_ node: NodeProcess) -> String {
        "\(ConfabBinary.url.path) --data \(node.data.path) chat --listen 127.0.0.1:0 --no-discovery"
    }

    func file(_ name: String) -> String { root.appendingPathComponent(name).path }

    /// What `stty -g` wrote to `name`, once it has.
    func settings(_ name: String) async throws -> String {
        var text = ""
        try await waitUntil(timeout: 10, "stty -g to write \(name)") {
            text = (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? ""
            return text.hasSuffix("\n")
        }
        return text
    }

    func waitForChat(_ session: String) async throws {
        try await tmux.waitFor(session, "the chat on the alternate screen") { screen in
            screen.contains { $0.contains("No conversations yet") }
                && (try? tmux.value("#{alternate_on}", of: session)) == "1"
        }
    }

    /// The main screen and a visible cursor, as a shell has them.
    func expectTerminalGivenBack(_ session: String) throws {
        #expect(try tmux.value("#{alternate_on}", of: session) == "0")
        #expect(try tmux.value("#{cursor_flag}", of: session) == "1")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash"), "needs bash for job control"))
    func ctrlZGivesTheTerminalBackAndFgTakesItAgain() async throws {
        defer { tmux.stop() }
        let alice = try node()
        try tmux.start(
            session: "job", width: 100, height: 30, command: "exec /bin/bash --norc --noprofile -i",
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8", "PS1": "$ "])
        try await tmux.waitFor("job", text: "$")
        try tmux.type("stty -g > \(file("before"))", into: "job")
        try tmux.press("Enter", in: "job")
        let before = try await settings("before")
        try tmux.type(chat(alice), into: "job")
        try tmux.press("Enter", in: "job")
        try await waitForChat("job")

        try tmux.press("C-z", in: "job")
        try await tmux.waitFor("job", text: "Stopped")
        try expectTerminalGivenBack("job")
        try tmux.type("stty -g > \(file("stopped"))", into: "job")
        try tmux.press("Enter", in: "job")
        #expect(try await settings("stopped") == before)

        try tmux.type("fg", into: "job")
        try tmux.press("Enter", in: "job")
        try await waitForChat("job")
        // Raw mode again: "?" opens the help without Enter, Esc closes it.
        try tmux.type("?", into: "job")
        try await tmux.waitFor("job", text: "─ Keys ─")
        try tmux.press("Escape", in: "job")
        try await tmux.waitFor("job", "the help closed") { !$0.contains { $0.contains("─ Keys ─") } }

        try tmux.type("q", into: "job")
        try await tmux.waitFor("job", "the shell again") { screen in
            screen.last { !$0.isEmpty }?.hasPrefix("$") == true
                && (try? tmux.value("#{alternate_on}", of: "job")) == "0"
        }
        try tmux.type("stty -g > \(file("after"))", into: "job")
        try tmux.press("Enter", in: "job")
        #expect(try await settings("after") == before)
        try expectTerminalGivenBack("job")
    }

    /// From outside: termination signals end the chat in order (its node says goodbye and
    /// logs "node stopped"), crash signals kill it with their default action — each after
    /// the terminal is given back, and with 128 + the signal as its status.
    @Test(arguments: [SIGHUP, SIGINT, SIGTERM, SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP])
    func aSignalGivesTheTerminalBackFirst(_ signal: Int32) async throws {
        defer { tmux.stop() }
        let alice = try node()
        // No core file left behind by the crash signals.
        try tmux.start(
            session: "sig", width: 100, height: 30,
            command: "ulimit -c 0; stty -g > \(file("before")); \(chat(alice)); status=$?; "
                + "stty -g > \(file("after")); (exit $status)",
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"])
        try await waitForChat("sig")
        let pid = try await nodePid(alice)

        kill(pid, signal)
        try await tmux.waitFor("sig", text: "[exited \(128 + signal)]")
        #expect(try await settings("after") == (try await settings("before")))
        try expectTerminalGivenBack("sig")
        let orderly = [SIGHUP, SIGINT, SIGTERM].contains(signal)
        #expect(chatLog(alice).contains("node stopped") == orderly)
    }

    @Test func closingTheTerminalEndsTheChatInOrder() async throws {
        defer { tmux.stop() }
        let alice = try node()
        try tmux.start(
            session: "gone", width: 100, height: 30, command: chat(alice),
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"])
        try await waitForChat("gone")
        let pid = try await nodePid(alice)
        try tmux.close("gone")
        try await waitUntil(timeout: 10, "the chat to end") { kill(pid, 0) != 0 }
        #expect(chatLog(alice).contains("node stopped"))
    }

    /// The chat writes its node's log in the data directory.
    func chatLog(_ node: NodeProcess) -> String {
        (try? String(contentsOf: node.data.appendingPathComponent("confab.log"), encoding: .utf8)) ?? ""
    }

    /// The chat's pid, from its node's lock file (written once the node has started).
    func nodePid(_ node: NodeProcess) async throws -> pid_t {
        var pid: pid_t = 0
        try await waitUntil(timeout: 20, "\(node.name)'s node to start") {
            let text = (try? String(contentsOf: node.data.appendingPathComponent("node.lock"), encoding: .utf8)) ?? ""
            pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            return pid > 0 && chatLog(node).contains("listening on")
        }
        return pid
    }
}
