import Dispatch
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// While a terminal is in full-screen mode: SIGHUP (the terminal closed), SIGINT and
/// SIGTERM restore it, then let its owner end in order (the chat quits as with `q`, its
/// node saying goodbye to peers) or, without one, exit at once — either way with 128 + the
/// signal number, and at the latest `orderlyExitTimeout` later. In raw mode Ctrl+C is a
/// key, so these come from outside (kill, systemd, a closing window). SIGTSTP, SIGCONT
/// and the crash signals are handled in signal context (`SignalContext`); SIGCONT also
/// comes here, so the owner redraws.
///
/// A plain handler passes the signal number through a pipe to a dispatch read source,
/// which does the work outside signal context. Not a dispatch signal source: on Linux,
/// libdispatch installs its own handler for a signal once per process and never gives
/// it back, so leaving full-screen mode could not put back the previous disposition, and
/// entering it again would no longer see the signals.
final class TerminationSignals: Sendable {
    static let shared = TerminationSignals { exit($0) }
    static let signals: [Int32] = [SIGHUP, SIGINT, SIGTERM]
    static let orderlyExitTimeout: DispatchTimeInterval = .seconds(5)

    /// Nil when no pipe could be made: the signals then keep their usual effect.
    private let relay: (read: Int32, write: Int32)?
    private let exitProcess: @Sendable (Int32) -> Void
    private let state = NIOLockedValueBox(State())
    private let source = NIOLockedValueBox<SendableDispatchSource<any DispatchSourceRead>?>(nil)

    private struct State {
        var terminals: [ObjectIdentifier: WeakTerminal] = [:]
        /// What was there before; set while the handler is installed.
        var previousActions: [Int32: sigaction]?
    }

    private struct WeakTerminal {
        weak var terminal: Terminal?
    }

    /// `exitProcess` ends the process (tests record the code instead). Only one instance
    /// may have its handler installed at a time: signal dispositions are process-wide.
    init(exitProcess: @escaping @Sendable (Int32) -> Void) {
        let relay = try? FileDescriptorIO.makePipe()
        if let relay {
            // The handler must never block, even on a full pipe (a signal storm).
            _ = fcntl(relay.write, F_SETFL, fcntl(relay.write, F_GETFL) | O_NONBLOCK)
        }
        self.relay = relay
        self.exitProcess = exitProcess
    }

    deinit {
        guard let relay else { return }
        close(relay.write)
        // A started source closes the read end once cancelled, when nothing reads it.
        let started = source.withLockedValue { source in
            source?.source.cancel()
            return source != nil
        }
        if !started { close(relay.read) }
    }

    /// While any terminal is registered, the signals restore it and exit.
    func register(_ terminal: Terminal) {
        guard let relay else { return }
        state.withLockedValue { state in
            state.terminals[ObjectIdentifier(terminal)] = WeakTerminal(terminal: terminal)
            guard state.previousActions == nil else { return }
            startReading(relay.read)
            signalPipe = relay.write
            state.previousActions = Self.install()
        }
    }

    /// The last terminal leaving puts back the dispositions found when the first came.
    func unregister(_ terminal: Terminal) {
        state.withLockedValue { state in
            state.terminals[ObjectIdentifier(terminal)] = nil
            guard state.terminals.isEmpty, let previousActions = state.previousActions else { return }
            for (signalNumber, action) in previousActions {
                var action = action
                sigaction(signalNumber, &action, nil)
            }
            state.previousActions = nil
        }
    }

    /// Every handler; returns the dispositions found.
    private static func install() -> [Int32: sigaction] {
        var found = SignalContext.install(continued: continuedHandler)
        for signalNumber in signals { found[signalNumber] = SignalContext.setHandler(relaySignal, for: signalNumber) }
        return found
    }

    private func startReading(_ descriptor: Int32) {
        source.withLockedValue { source in
            guard source == nil else { return }
            let reader = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
            reader.setEventHandler { [weak self] in self?.signalArrived(descriptor) }
            reader.setCancelHandler { close(descriptor) }
            reader.resume()
            source = SendableDispatchSource(source: reader)
        }
    }

    private func signalArrived(_ descriptor: Int32) {
        var byte: UInt8 = 0
        guard read(descriptor, &byte, 1) == 1 else { return }
        let signalNumber = Int32(byte)
        let terminals = state.withLockedValue { state in state.terminals.values.compactMap(\.terminal) }
        guard signalNumber != SIGCONT else {
            for terminal in terminals { terminal.continued() }
            return
        }
        for terminal in terminals {
            terminal.restore()
        }
        let ending = terminals.filter { $0.terminating(by: signalNumber) }
        guard !ending.isEmpty else { return exitProcess(128 + signalNumber) }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.orderlyExitTimeout) { [exitProcess] in
            exitProcess(128 + signalNumber)
        }
    }
}

/// The pipe the handler writes to: a plain global, since a signal handler can reach
/// nothing else. Set before the handler is installed.
private nonisolated(unsafe) var signalPipe: Int32 = -1

/// Runs in signal context: only write(2), which is async-signal-safe, and errno kept.
private func relaySignal(_ signalNumber: Int32) {
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: signalNumber)
    _ = write(signalPipe, &byte, 1)
    errno = savedErrno
}

/// SIGCONT: the terminal taken again at once, in signal context (the process may have
/// been stopped from outside, by SIGSTOP, with nothing restored); the redraw is relayed.
private func continuedHandler(_ signalNumber: Int32) {
    SignalContext.enter()
    relaySignal(signalNumber)
}
