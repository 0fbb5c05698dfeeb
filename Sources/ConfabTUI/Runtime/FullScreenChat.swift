import ConfabClient
import ConfabNode
import Foundation
import NIOConcurrencyHelpers

/// The full-screen chat on this process's terminal: raw mode and the alternate screen for
/// as long as it runs, given back on every way out — quit, error, Ctrl+Z (taken again on
/// `fg`), SIGTERM/SIGINT/SIGHUP (then the chat quits in order), a crash signal.
public enum FullScreenChat {
    /// Returns the signal that ended the chat (SIGHUP, SIGINT, SIGTERM), if one did: the
    /// caller exits with 128 + it.
    @discardableResult
    public static func run(
        local: Profile, options: NodeOptions, capabilities: TerminalCapabilities, notify: NotificationStyle
    ) async throws -> Int32? {
        let terminal = Terminal()
        let size = try terminal.size()
        let renderer = NIOLockedValueBox(FrameRenderer(colors: capabilities.colors))
        let notifier = Notifier(style: notify) { try? terminal.write([0x07]) }
        let session = try ChatSession(
            local: local, options: options, width: size.width, height: size.height, colors: capabilities.colors,
            screen: .init(
                draw: { frame in
                    // Not onto the shell's screen once a signal gave the terminal back.
                    guard terminal.isFullScreen else { return }
                    let bytes = renderer.withLockedValue { $0.render(frame) }
                    try? terminal.write(bytes)
                },
                notify: { message, summary in notifier.announce(message, in: summary) },
                suspend: { terminal.suspend() }))
        let sink = session.inputSink
        terminal.onSignals(
            continued: {
                // The screen was the shell's meanwhile: everything is drawn again, at the
                // size the terminal has now.
                renderer.withLockedValue { $0.invalidate() }
                if let size = try? terminal.size() { sink(.resize(width: size.width, height: size.height)) }
            },
            terminating: { [quit = session.quitSink] _ in quit() })
        try terminal.enterFullScreen()
        defer { terminal.restore() }
        let inputs = try terminal.inputs()
        let pump = Task {
            for await input in inputs { sink(input) }
        }
        defer { pump.cancel() }
        try await session.run()
        return terminal.endedBy
    }
}
