import ConfabPseudoTerminal
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import ConfabTUI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// On a real pseudo-terminal. Serialized: SIGWINCH is delivered to the whole process.
@Suite(.serialized) struct TerminalTests {
    private func flags(_ settings: termios) -> [tcflag_t] {
        [settings.c_iflag, settings.c_oflag, settings.c_cflag, settings.c_lflag]
    }

    private func controlCharacters(_ settings: termios) -> [UInt8] {
        withUnsafeBytes(of: settings.c_cc) { Array($0) }
    }

    @Test func rawModeSetsTheFlagsAndRestoreBringsBackTheSavedSettings() throws {
        let pty = try PseudoTerminal()
        let original = try pty.settings()
        #expect(original.c_lflag & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO))

        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        try terminal.enterFullScreen()
        #expect(terminal.isFullScreen)
        let raw = try pty.settings()
        for flag in [ECHO, ICANON, ISIG, IEXTEN] {
            #expect(raw.c_lflag & tcflag_t(flag) == 0)
        }
        for flag in [IXON, ICRNL, INLCR, IGNCR, ISTRIP, BRKINT] {
            #expect(raw.c_iflag & tcflag_t(flag) == 0)
        }
        #expect(raw.c_oflag & tcflag_t(OPOST) != 0)
        #expect(raw.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
        #expect(controlCharacters(raw)[Int(VMIN)] == 1)
        #expect(controlCharacters(raw)[Int(VTIME)] == 0)

        terminal.restore()
        #expect(!terminal.isFullScreen)
        let restored = try pty.settings()
        #expect(flags(restored) == flags(original))
        #expect(controlCharacters(restored) == controlCharacters(original))
        var restoredSpeed = restored
        var originalSpeed = original
        #expect(cfgetispeed(&restoredSpeed) == cfgetispeed(&originalSpeed))
    }

    @Test func enteringAndLeavingWriteTheirSequences() throws {
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        try terminal.enterFullScreen()
        let enter = "\u{1B}[?1049h\u{1B}[?2004h\u{1B}[?7l\u{1B}[?25l"
        #expect(String(decoding: pty.output(atLeast: enter.utf8.count), as: UTF8.self) == enter)

        try terminal.write(Array("frame".utf8))
        #expect(pty.output(atLeast: 5) == Array("frame".utf8))

        terminal.restore()
        let leave = "\u{1B}[0m\u{1B}[?2004l\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"
        #expect(String(decoding: pty.output(atLeast: leave.utf8.count), as: UTF8.self) == leave)
    }

    @Test func restoreIsIdempotentAndHarmlessBeforeEntering() throws {
        let pty = try PseudoTerminal()
        let original = try pty.settings()
        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        terminal.restore()
        try terminal.enterFullScreen()
        try terminal.enterFullScreen()
        terminal.restore()
        terminal.restore()
        #expect(flags(try pty.settings()) == flags(original))
        // One enter and one leave, nothing twice.
        let written = String(decoding: pty.output(atLeast: 60, timeout: .milliseconds(300)), as: UTF8.self)
        #expect(written.components(separatedBy: "\u{1B}[?1049h").count == 2)
        #expect(written.components(separatedBy: "\u{1B}[?1049l").count == 2)
    }

    @Test func restoreAfterAnErrorInADefer() throws {
        struct Failure: Error {}
        let pty = try PseudoTerminal()
        let original = try pty.settings()
        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        #expect(throws: Failure.self) {
            try terminal.enterFullScreen()
            defer { terminal.restore() }
            throw Failure()
        }
        #expect(flags(try pty.settings()) == flags(original))
    }

    @Test func signalsAreHandledOnlyWhileInFullScreen() throws {
        let pty = try PseudoTerminal()
        let signals = TerminationSignals.signals + [SIGTSTP, SIGCONT] + SignalContext.crashSignals
        let before = signals.map(disposition)
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        // Twice: leaving full-screen mode (to run an editor, say) and coming back works.
        for _ in 0..<2 {
            try terminal.enterFullScreen()
            let armed = SignalContext.armed.load(ordering: .relaxed)
            #expect(armed)
            for (signalNumber, previous) in zip(signals, before) {
                #expect(disposition(signalNumber) != previous, "signal \(signalNumber)")
            }
            terminal.restore()
            let disarmed = !SignalContext.armed.load(ordering: .relaxed)
            #expect(disarmed)
            #expect(signals.map(disposition) == before)
        }
    }

    @Test func aSignalFromOutsideRestoresTheTerminalThenExits() async throws {
        let pty = try PseudoTerminal()
        let original = try pty.settings()
        let before = disposition(SIGTERM)
        let exitCode = NIOLockedValueBox<Int32?>(nil)
        let signals = TerminationSignals { code in exitCode.withLockedValue { $0 = code } }
        let terminal = Terminal(input: pty.slave, output: pty.slave, signals: signals)
        try terminal.enterFullScreen()
        _ = pty.output(atLeast: EscapeSequence.enterFullScreen.count)

        kill(getpid(), SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while exitCode.withLockedValue({ $0 }) == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(exitCode.withLockedValue { $0 } == 128 + SIGTERM)
        #expect(!terminal.isFullScreen)
        #expect(flags(try pty.settings()) == flags(original))
        #expect(pty.output(atLeast: EscapeSequence.leaveFullScreen.count) == EscapeSequence.leaveFullScreen)
        #expect(disposition(SIGTERM) == before)
    }

    /// What signals made a terminal's owner and its signal handling do (on other threads).
    private final class Calls: Sendable {
        let continued = NIOLockedValueBox(0)
        let terminating = NIOLockedValueBox<[Int32]>([])
        let exits = NIOLockedValueBox<[Int32]>([])

        func waitFor(_ what: @escaping @Sendable () -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while !what(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    /// A terminal in full-screen mode on a pseudo-terminal, its signals handled by an
    /// instance of its own that records the exit instead of exiting, its owner recording.
    private func ownedTerminal() throws -> (PseudoTerminal, original: termios, Calls, Terminal) {
        let pty = try PseudoTerminal()
        let original = try pty.settings()
        let calls = Calls()
        let signals = TerminationSignals { code in calls.exits.withLockedValue { $0.append(code) } }
        let terminal = Terminal(input: pty.slave, output: pty.slave, signals: signals)
        terminal.onSignals(
            continued: { calls.continued.withLockedValue { $0 += 1 } },
            terminating: { signal in calls.terminating.withLockedValue { $0.append(signal) } })
        try terminal.enterFullScreen()
        _ = pty.output(atLeast: EscapeSequence.enterFullScreen.count)
        return (pty, original, calls, terminal)
    }

    /// Continued after a stop from outside (SIGSTOP, which nothing can catch, and the shell
    /// put its own settings back): raw mode and the alternate screen again, and the owner
    /// told to draw everything.
    @Test func continuedTheTerminalIsTakenAgainAndTheOwnerRedraws() async throws {
        let (pty, original, calls, terminal) = try ownedTerminal()
        defer { terminal.restore() }
        var cooked = original
        #expect(tcsetattr(pty.slave, TCSANOW, &cooked) == 0)

        kill(getpid(), SIGCONT)
        try await calls.waitFor { calls.continued.withLockedValue { $0 } == 1 }
        #expect(calls.continued.withLockedValue { $0 } == 1)
        #expect(flags(try pty.settings()) == flags(RawMode.settings(from: original)))
        #expect(pty.output(atLeast: EscapeSequence.enterFullScreen.count) == EscapeSequence.enterFullScreen)
        #expect(terminal.isFullScreen)
    }

    /// With an owner, a termination signal restores the terminal and leaves the ending to it
    /// (the chat quits in order), not an immediate exit.
    @Test func aTerminationSignalLetsTheOwnerEndInOrder() async throws {
        let (pty, original, calls, terminal) = try ownedTerminal()
        kill(getpid(), SIGHUP)
        try await calls.waitFor { !calls.terminating.withLockedValue { $0 }.isEmpty }
        #expect(calls.terminating.withLockedValue { $0 } == [SIGHUP])
        #expect(terminal.endedBy == SIGHUP)
        #expect(!terminal.isFullScreen)
        #expect(flags(try pty.settings()) == flags(original))
        // The process exit waits for the owner (for 5 s at most).
        #expect(calls.exits.withLockedValue { $0 }.isEmpty)
    }

    @Test func aPipeIsNotATerminal() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        defer { descriptors.forEach { close($0) } }
        let terminal = Terminal(input: descriptors[0], output: descriptors[1], restoresOnSignals: false)
        #expect(throws: TerminalError.notATerminal) { try terminal.enterFullScreen() }
        #expect(!terminal.isFullScreen)
        #expect(
            !Terminal.capabilities(environment: ["TERM": "xterm"], input: descriptors[0], output: descriptors[1])
                .fullScreen)
    }

    @Test func sizeIsWhatTheTerminalSays() throws {
        let pty = try PseudoTerminal()
        pty.setSize(width: 132, height: 43)
        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        #expect(try terminal.size() == TerminalSize(width: 132, height: 43))
    }

    @Test func typedBytesArriveAsKeys() async throws {
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        try terminal.enterFullScreen()
        defer { terminal.restore() }
        let stream = try terminal.inputs()
        pty.send(Array("hi\u{1B}[A\r".utf8))
        let inputs = await collect(stream) { $0.keys.count >= 4 }
        #expect(inputs.keys == [.character("h"), .character("i"), .up, .enter])
    }

    @Test func aLoneEscapeArrivesAfterTheTimeout() async throws {
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        try terminal.enterFullScreen()
        defer { terminal.restore() }
        let stream = try terminal.inputs()
        let sent = ContinuousClock.now
        pty.send([0x1B])
        let inputs = await collect(stream) { !$0.keys.isEmpty }
        #expect(inputs.keys == [.escape])
        #expect(ContinuousClock.now - sent >= .milliseconds(25))
    }

    @Test func controlKeysArriveAsKeysNotSignals() async throws {
        // ISIG is off, so Ctrl+C is a key and the process gets no SIGINT.
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        try terminal.enterFullScreen()
        defer { terminal.restore() }
        let stream = try terminal.inputs()
        pty.send([0x03, 0x1A, 0x13])
        let inputs = await collect(stream) { $0.keys.count >= 3 }
        #expect(inputs.keys == [.control("c"), .control("z"), .control("s")])
    }

    @Test func aResizeIsReported() async throws {
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        let stream = try terminal.inputs()
        pty.setSize(width: 90, height: 30)
        // The pseudo-terminal is not this process's controlling terminal, so the kernel
        // signals nobody; the signal a terminal emulator causes is raised here instead,
        // again until it is seen (dispatch registers the watch asynchronously, and a
        // SIGWINCH before that is ignored, as it is by default).
        let signalling = Task {
            while !Task.isCancelled {
                kill(getpid(), SIGWINCH)
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        let inputs = await collect(stream) { $0.contains(.resize(width: 90, height: 30)) }
        signalling.cancel()
        #expect(inputs.contains(.resize(width: 90, height: 30)))
        #expect(inputs.keys.isEmpty)
        terminal.restore()
    }

    @Test func restoreEndsTheInputStream() async throws {
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave, restoresOnSignals: false)
        try terminal.enterFullScreen()
        let stream = try terminal.inputs()
        terminal.restore()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    private func disposition(_ signalNumber: Int32) -> Int {
        var action = sigaction()
        sigaction(signalNumber, nil, &action)
        #if canImport(Glibc)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        #else
        return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
        #endif
    }
}
