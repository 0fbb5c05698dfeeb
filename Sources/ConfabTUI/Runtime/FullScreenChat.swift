import ConfabNode
import Foundation
import NIOConcurrencyHelpers

/// The full-screen chat on this process's terminal: raw mode and the alternate screen for
/// as long as it runs, restored on every way out (quit, error, SIGTERM/SIGHUP).
public enum FullScreenChat {
    public static func run(
        local: Profile, options: NodeOptions, capabilities: TerminalCapabilities, notify: NotificationStyle
    ) async throws {
        let terminal = Terminal()
        let size = try terminal.size()
        let renderer = NIOLockedValueBox(FrameRenderer(colors: capabilities.colors))
        let notifier = Notifier(style: notify) { try? terminal.write([0x07]) }
        let session = try ChatSession(
            local: local, options: options, width: size.width, height: size.height, colors: capabilities.colors,
            screen: .init(
                draw: { frame in
                    let bytes = renderer.withLockedValue { $0.render(frame) }
                    try? terminal.write(bytes)
                },
                notify: { message, summary in notifier.announce(message, in: summary) }))
        try terminal.enterFullScreen()
        defer { terminal.restore() }
        let inputs = try terminal.inputs()
        let sink = session.inputSink
        let pump = Task {
            for await input in inputs { sink(input) }
        }
        defer { pump.cancel() }
        try await session.run()
    }
}
