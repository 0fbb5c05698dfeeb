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
        var continued: (@Sendable () -> Void)?
        var terminating: (@Sendable (Int32) -> Void)?
        /// The signal that ended full-screen mode, if one did.
        var endedBy: Int32?
    }

    /// `restoresOnSignals`: while in full-screen mode, SIGHUP, SIGINT and SIGTERM restore
    /// the terminal and exit with 128 + the signal number (in order, with `onSignals`);
    /// Ctrl+Z (`suspend`) and SIGTSTP give it back until the process is continued; a
    /// crash signal restores it before the process dies of it.
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

    /// What the owner does after a stop (`continued`: everything must be drawn again, the
    /// terminal is back in full-screen mode) and after a termination signal restored the
    /// terminal (`terminating`: end in order; the process exits in a few seconds anyway).
    public func onSignals(
        continued: @escaping @Sendable () -> Void, terminating: @escaping @Sendable (Int32) -> Void
    ) {
        state.withLockedValue { state in
            state.continued = continued
            state.terminating = terminating
        }
    }

    /// The signal (SIGHUP, SIGINT, SIGTERM) that ended full-screen mode, if one did.
    public var endedBy: Int32? {
        state.withLockedValue { $0.endedBy }
    }

    /// Ctrl+Z: gives the terminal back and stops the process, as a shell's job; returns once
    /// it is continued (`fg`), in full-screen mode again. Only with `restoresOnSignals`.
    public func suspend() {
        guard signals != nil, isFullScreen else { return }
        // To the process, not this thread: the threads of Swift's pool and of dispatch
        // block SIGTSTP, and a signal raised on one would wait there for ever.
        kill(getpid(), SIGTSTP)
    }

    func continued() {
        let handler = state.withLockedValue { $0.saved != nil ? $0.continued : nil }
        handler?()
    }

    /// Whether the owner takes over ending the process.
    func terminating(by signalNumber: Int32) -> Bool {
        let handler = state.withLockedValue { state in
            state.endedBy = signalNumber
            return state.terminating
        }
        handler?(signalNumber)
        return handler != nil
    }

    /// Raw mode, the alternate screen, bracketed paste, cursor hidden. Does nothing when
    /// already in full-screen mode; on failure the terminal is left as it was.
    public func enterFullScreen() throws {
        let entered = try state.withLockedValue { state in
            guard state.saved == nil else { return false }
            let original = try RawMode.current(inputDescriptor)
            let raw = RawMode.settings(from: original)
            try RawMode.apply(raw, to: inputDescriptor)
            state.saved = original
            if let signals {
                SignalContext.arm(fd: inputDescriptor, saved: original, raw: raw)
                signals.register(self)
            }
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
            if signals != nil { SignalContext.disarm() }
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

    /// Writes all of `bytes` (a rendered frame, say) before returning; nothing while the
    /// process is stopped by Ctrl+Z (the shell has the terminal).
    public func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty, !SignalContext.suspended.load(ordering: .acquiring) else { return }
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
