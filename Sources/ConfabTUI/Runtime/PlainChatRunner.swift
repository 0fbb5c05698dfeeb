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
            if bellAllowed { FileHandle.standardOutput.write(Data("\u{7}".utf8)) }
        }
        let chat = PlainChat(
            local: local, options: options,
            write: { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) },
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
