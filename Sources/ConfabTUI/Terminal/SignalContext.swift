import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the handlers that run in signal context need to give the terminal back or take it
/// again: SIGTSTP (stop as a job), SIGCONT (continued) and the crash signals, which cannot
/// wait for a thread to be scheduled. Only async-signal-safe work there — no lock, no
/// allocation, no Swift runtime call: fixed-size globals made before the handlers go in
/// (`arm` touches each first, so none is initialised lazily in a handler), an atomic flag,
/// and write(2), tcsetattr(3), sigaction(2), pthread_sigmask(3) and raise(3).
///
/// One terminal at a time: a process has one controlling terminal.
enum SignalContext {
    /// Signals that end the process by a fault or an abort: the terminal is restored, then
    /// the signal is raised again with its default action, so the process still dies of it
    /// (with a core dump where those are enabled). Not Swift's backtracer, which would be
    /// the disposition found: on a terminal it prints onto the screen and then waits 30 s
    /// for a key — for a backtrace, reproduce the crash with `chat --plain`.
    static let crashSignals: [Int32] = [SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP]

    /// Set while a terminal is in full-screen mode, cleared before it leaves.
    static let armed = Atomic<Bool>(false)
    /// Set from a stop until the terminal is taken again: frames are not written meanwhile.
    static let suspended = Atomic<Bool>(false)

    nonisolated(unsafe) private static var descriptor: Int32 = -1
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var raw = termios()
    /// CAN first: it cancels an escape sequence a frame may have been in the middle of.
    nonisolated(unsafe) private static let leaveBytes = buffer([0x18] + EscapeSequence.leaveFullScreen)
    nonisolated(unsafe) private static let enterBytes = buffer(EscapeSequence.enterFullScreen)

    private static func buffer(_ bytes: [UInt8]) -> UnsafeMutableBufferPointer<UInt8> {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        return buffer
    }

    /// The terminal on `fd` entered full-screen mode from `saved`, with `raw`.
    static func arm(fd: Int32, saved: termios, raw: termios) {
        _ = (leaveBytes, enterBytes)
        descriptor = fd
        self.saved = saved
        self.raw = raw
        suspended.store(false, ordering: .releasing)
        armed.store(true, ordering: .releasing)
    }

    static func disarm() {
        armed.store(false, ordering: .releasing)
    }

    /// Handlers for SIGTSTP, SIGCONT and the crash signals; returns the dispositions found,
    /// to put back when full-screen mode ends.
    static func install(continued: @escaping Handler) -> [Int32: sigaction] {
        var found: [Int32: sigaction] = [:]
        let handlers: [(Int32, Handler)] =
            [(SIGTSTP, stopHandler), (SIGCONT, continued)] + crashSignals.map { ($0, crashHandler) }
        for (signalNumber, handler) in handlers {
            found[signalNumber] = setHandler(handler, for: signalNumber)
        }
        return found
    }

    typealias Handler = @convention(c) (Int32) -> Void

    /// Puts `handler` in place for `signalNumber` (nil: the default action), interrupted
    /// system calls restarted, on the thread's alternate stack where it has one (a stack
    /// overflow leaves none); returns what was there. Async-signal-safe.
    @discardableResult
    static func setHandler(_ handler: Handler?, for signalNumber: Int32) -> sigaction {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        action.sa_flags = SA_RESTART | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        var before = sigaction()
        sigaction(signalNumber, &action, &before)
        return before
    }

    /// Gives the terminal back: the main screen, cursor shown, the settings found. With
    /// `suspending`, frames are not written until `enter`.
    static func leave(suspending: Bool = false) {
        guard armed.load(ordering: .acquiring) else { return }
        if suspending { suspended.store(true, ordering: .releasing) }
        _ = write(descriptor, leaveBytes.baseAddress, leaveBytes.count)
        _ = tcsetattr(descriptor, TCSANOW, &saved)
    }

    /// Takes it again after a stop: raw mode and the alternate screen, for a full redraw.
    static func enter() {
        guard armed.load(ordering: .acquiring) else { return }
        _ = tcsetattr(descriptor, TCSANOW, &raw)
        _ = write(descriptor, enterBytes.baseAddress, enterBytes.count)
        suspended.store(false, ordering: .releasing)
    }
}

/// SIGTSTP (Ctrl+Z, which the chat raises itself since raw mode sends it as a key, or a
/// `kill -TSTP`): the terminal back, then the stop the default action makes; once
/// continued, this handler back in place — SIGCONT's handler takes the terminal again.
private func stopHandler(_ signalNumber: Int32) {
    let savedErrno = errno
    SignalContext.leave(suspending: true)
    var mine = SignalContext.setHandler(nil, for: SIGTSTP)
    // Blocked while its handler runs: unblocked for the raise, which stops the process
    // before it returns.
    var only = sigset_t()
    var mask = sigset_t()
    sigemptyset(&only)
    sigaddset(&only, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &only, &mask)
    raise(SIGTSTP)
    pthread_sigmask(SIG_SETMASK, &mask, nil)
    sigaction(SIGTSTP, &mine, nil)
    errno = savedErrno
}

/// A crash: the terminal back, then the signal again with its default action (blocked
/// until this returns, it then ends the process).
private func crashHandler(_ signalNumber: Int32) {
    SignalContext.leave()
    SignalContext.setHandler(nil, for: signalNumber)
    raise(signalNumber)
}
