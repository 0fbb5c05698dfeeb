import ConfabClient
import ConfabNode
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the plain chat on standard input and output.
public enum PlainChatRunner {
    public static func run(local: Profile, options: NodeOptions, notify: NotificationStyle) async {
        let bellAllowed = isatty(STDOUT_FILENO) == 1
        let notifier = Notifier(style: notify) {
            if bellAllowed { StandardStreams.out("\u{7}") }
        }
        let chat = PlainChat(
            local: local, options: options,
            write: { line in StandardStreams.out(line + "\n") },
            notifier: notifier)
        await chat.run(lines: standardInputLines())
    }

    /// Lines of standard input, read on a thread of their own (reading blocks).
    static func standardInputLines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let thread = Thread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }
        thread.stackSize = 1 << 20
        thread.start()
        return stream
    }
}
