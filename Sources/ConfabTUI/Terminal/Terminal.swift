import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal the chat runs in: full-screen mode in and out, its size, writing, and the
/// stream of keys and resizes. `restore()` puts everything back and is safe to call any
/// number of times and from any thread: from a `defer` after an error, when a signal
/// ends the process, and when the terminal goes away unrestored.
public final class Terminal: Sendable {
    public let inputDescriptor: Int32
    public let outputDescriptor: Int32
    private let signals: TerminationSignals?
    private let state = NIOLockedValueBox(State())
    // Frames and the restoring sequences must not interleave.
    private let writing = NIOLockedValueBox(())

    private struct State {
        /// The settings to restore; set while in full-screen mode.
        var saved: termios?
        var reader: TerminalInputReader?
    }

    /// `restoresOnSignals`: while in full-screen mode, SIGHUP, SIGINT and SIGTERM restore
    /// the terminal and exit with 128 + the signal number.
    public convenience init(
        input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, restoresOnSignals: Bool = true
    ) {
        self.init(input: input, output: output, signals: restoresOnSignals ? .shared : nil)
    }

    init(input: Int32, output: Int32, signals: TerminationSignals?) {
        self.inputDescriptor = input
        self.outputDescriptor = output
        self.signals = signals
    }

    deinit {
        restore()
    }

    public static func capabilities(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO
    ) -> TerminalCapabilities {
        TerminalCapabilities(
            inputIsTerminal: isatty(input) == 1, outputIsTerminal: isatty(output) == 1, environment: environment)
    }

    public var isFullScreen: Bool {
        state.withLockedValue { $0.saved != nil }
    }

    /// Raw mode, the alternate screen, bracketed paste, cursor hidden. Does nothing when
    /// already in full-screen mode; on failure the terminal is left as it was.
    public func enterFullScreen() throws {
        let entered = try state.withLockedValue { state in
            guard state.saved == nil else { return false }
            let original = try RawMode.current(inputDescriptor)
            try RawMode.apply(RawMode.settings(from: original), to: inputDescriptor)
            state.saved = original
            signals?.register(self)
            return true
        }
        guard entered else { return }
        do {
            try write(EscapeSequence.enterFullScreen)
        } catch {
            restore()
            throw error
        }
    }

    /// Back to the main screen with the cursor shown, default style, bracketed paste off
    /// and the saved settings; stops the input stream. The whole restore runs under the
    /// lock, so a signal arriving during a `defer`'s restore waits for it to finish.
    public func restore() {
        state.withLockedValue { state in
            state.reader?.stop()
            state.reader = nil
            guard let saved = state.saved else { return }
            // Best effort: if the terminal is gone there is nothing to restore on it.
            try? write(EscapeSequence.leaveFullScreen)
            try? RawMode.apply(saved, to: inputDescriptor)
            state.saved = nil
            signals?.unregister(self)
        }
    }

    public func size() throws -> TerminalSize {
        var size = winsize()
        guard ioctl(outputDescriptor, UInt(TIOCGWINSZ), &size) == 0 else {
            throw TerminalError.systemCall("ioctl(TIOCGWINSZ)", errno: errno)
        }
        return TerminalSize(width: Int(size.ws_col), height: Int(size.ws_row))
    }

    /// Writes all of `bytes` (a rendered frame, say) before returning.
    public func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        try writing.withLockedValue { _ in try FileDescriptorIO.writeAll(outputDescriptor, bytes) }
    }

    /// Keys as they are typed and sizes as they change, read on a thread of its own. One
    /// stream at a time: a new call ends the previous stream, and so does `restore()`.
    /// Keys come one by one only in full-screen mode (raw mode); before it, the terminal
    /// hands over whole lines.
    public func inputs() throws -> AsyncStream<TerminalInput> {
        let (stream, continuation) = AsyncStream.makeStream(of: TerminalInput.self, bufferingPolicy: .unbounded)
        let reader = try TerminalInputReader(input: inputDescriptor, continuation: continuation) { [weak self] in
            try? self?.size()
        }
        continuation.onTermination = { _ in reader.stop() }
        let previous = state.withLockedValue { state in
            defer { state.reader = reader }
            return state.reader
        }
        previous?.stop()
        reader.start()
        return stream
    }
}
