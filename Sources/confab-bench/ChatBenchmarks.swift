import ConfabClient
import ConfabModel
import ConfabNode
import ConfabPseudoTerminal
import ConfabStore
import ConfabTUI
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The full-screen chat on a heavy store: how long until the first full frame, and what a
/// keystroke costs (state change, view, diff against the previous frame).
enum ChatBenchmarks {
    static let width = 120
    static let height = 40

    static func run(conversations: Int, perConversation: Int, confab: URL?) async throws {
        // CONFAB_BENCH_CHAT_DIR keeps the fixture (built on first use) for repeated runs.
        let kept = ProcessInfo.processInfo.environment["CONFAB_BENCH_CHAT_DIR"].map { URL(fileURLWithPath: $0) }
        let directory =
            kept
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("confab-chat-bench-\(UUID().uuidString)")
        defer { if kept == nil { try? FileManager.default.removeItem(at: directory) } }
        if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("identity.key").path) {
            let buildTime = try measure {
                _ = try ChatFixture.make(at: directory, conversations: conversations, perConversation: perConversation)
            }
            print(
                String(
                    format: "chat fixture: %d conversations, %d messages built in %.1f s", conversations,
                    conversations * perConversation, buildTime))
        }

        // In this process: open the store, load the list and the last open chat, render,
        // diff into terminal bytes. Each run opens the store afresh.
        let local = try Profile.open(DataDirectory(url: directory))
        let first = try local.store.conversations().first!.id
        try local.store.setMetaValue("tui.lastOpen", first.hex)
        var firstFrames: [Double] = []
        var fullLists: [Double] = []
        var bytes = 0
        for _ in 0..<7 {
            let start = DispatchTime.now().uptimeNanoseconds
            let local = try Profile.open(DataDirectory(url: directory))
            let output = ByteCounter(start: start)
            let session = try ChatSession(
                local: local, options: NodeOptions(directory: local.directory), width: width, height: height,
                colors: true,
                screen: .init(draw: { frame in output.add(frame) }, notify: { _, _ in }))
            try await session.showLocalState()
            bytes = output.firstFrameBytes
            firstFrames.append(output.firstFrameSeconds)
            fullLists.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        firstFrames.sort()
        fullLists.sort()
        var queries: [Double] = []
        for _ in 0..<7 {
            let local = try Profile.open(DataDirectory(url: directory))
            queries.append(try measure { _ = try local.store.conversations() })
        }
        queries.sort()
        print(
            String(format: "conversation list query (%d rows)      median %6.1f ms", conversations, queries[3] * 1000))
        print(
            String(
                format:
                    "chat first frame, in process   median %6.1f ms  min %6.1f ms   (%d bytes to the terminal; whole list loaded and drawn at %.1f ms)",
                firstFrames[3] * 1000, firstFrames[0] * 1000, bytes, fullLists[3] * 1000))

        if let confab {
            try measureProcess(confab: confab, directory: directory)
        }
        try measureKeystrokes(local: local, opening: first)
    }

    /// The real binary on a pseudo-terminal, from exec to the status bar of the first
    /// frame on the terminal; the ceiling is the same binary printing its version.
    static func measureProcess(confab: URL, directory: URL) throws {
        var startups: [Double] = []
        var versions: [Double] = []
        for _ in 0..<5 {
            versions.append(try timeToOutput(confab, ["--version"], marker: "protocol"))
            startups.append(
                try timeToOutput(
                    confab, ["--data", directory.path, "chat", "--no-discovery", "--listen", "127.0.0.1:0"],
                    marker: "bench · ", then: [0x03]))
        }
        startups.sort()
        versions.sort()
        print(
            String(
                format:
                    "chat first frame, real process median %6.1f ms  min %6.1f ms   target 150 ms   ceiling `confab --version` %5.1f ms   ratio %.1f",
                startups[2] * 1000, startups[0] * 1000, versions[2] * 1000, startups[2] / versions[2]))
    }

    /// Starts `confab ARGUMENTS` on a pseudo-terminal and returns the time until `marker`
    /// appears on it; then sends `then` (Ctrl+C to quit) and waits for the exit.
    static func timeToOutput(
        _ confab: URL, _ arguments: [String], marker: String, then: [UInt8] = []
    ) throws
        -> Double
    {
        let terminal = try PseudoTerminal()
        terminal.setSize(width: width, height: height)
        let process = Process()
        process.executableURL = confab
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        process.environment = environment
        let handle = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        var seen: [UInt8] = []
        let bytes = Array(marker.utf8)
        while !seen.contains(bytes), DispatchTime.now().uptimeNanoseconds - start < 10_000_000_000 {
            seen += terminal.output(atLeast: 1, timeout: .milliseconds(20))
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if !then.isEmpty { terminal.send(then) }
        process.waitUntilExit()
        return elapsed
    }

    /// Keys as a person presses them: moving through the list, typing a message, paging up
    /// through history. Each costs a state change, a frame and its diff.
    static func measureKeystrokes(local: Profile, opening id: ConversationID) throws {
        var state = ChatState(me: local.me, myName: "bench", lastOpen: nil, width: width, height: height)
        var calendar = Calendar.current
        calendar.timeZone = .current
        state.calendar = calendar
        _ = state.apply(.conversations(try local.store.conversations()))
        var renderer = FrameRenderer(colors: true)
        let now = Date()
        _ = renderer.render(ChatScreen.render(state, now: now, calendar: calendar, colors: true))

        func press(_ keys: [Key], label: String) {
            var times: [Double] = []
            var split = (handle: 0.0, view: 0.0, diff: 0.0)
            var written = 0
            func now64() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e3 }
            for key in keys {
                let start = now64()
                let effects = state.handle(key)
                for effect in effects {
                    if case .openConversation(let id, _) = effect,
                        let messages = try? local.store.history(id, limit: 60)
                    {
                        _ = state.apply(.history(id, messages, hasOlder: true, focus: nil))
                    }
                }
                let handled = now64()
                let frame = ChatScreen.render(state, now: now, calendar: calendar, colors: true)
                let viewed = now64()
                written += renderer.render(frame).count
                let end = now64()
                split.handle += handled - start
                split.view += viewed - handled
                split.diff += end - viewed
                times.append(end - start)
            }
            times.sort()
            let n = Double(keys.count)
            print(
                String(
                    format:
                        "keystroke, %-22@ mean %7.1f µs  p99 %7.1f µs  (keys %6.1f, view %6.1f, diff %6.1f)  %6.0f bytes/key",
                    label as NSString, times.reduce(0, +) / n, times[times.count * 99 / 100], split.handle / n,
                    split.view / n, split.diff / n, Double(written) / n))
        }

        press(Array(repeating: .down, count: 300), label: "↓ through the list")
        press([.enter], label: "Enter opens a chat")
        press("see you at the station at 10, bring the tickets 🎟".map { .character($0) }, label: "typing a message")
        press(Array(repeating: .pageUp, count: 40), label: "PgUp through history")
    }

    static func measure(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// Renders frames to terminal bytes as the chat would, noting when the first was ready.
final class ByteCounter: @unchecked Sendable {
    private var renderer = FrameRenderer(colors: true)
    private let start: UInt64
    private(set) var firstFrameBytes = 0
    private(set) var firstFrameSeconds = 0.0

    init(start: UInt64) {
        self.start = start
    }

    func add(_ frame: Frame) {
        let bytes = renderer.render(frame).count
        guard firstFrameBytes == 0 else { return }
        firstFrameBytes = bytes
        firstFrameSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
