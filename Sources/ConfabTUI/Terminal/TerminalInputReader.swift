import Dispatch
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the terminal on a thread of its own, since a read waiting for the next key must
/// not hold one of the few threads of Swift's cooperative pool; decodes keys, watches
/// SIGWINCH, and reports both into one stream. The descriptor is left blocking: O_NONBLOCK
/// would change the file description the shell shares and outlive this process.
final class TerminalInputReader: Sendable {
    /// How long a lone ESC waits for the rest of a sequence before it counts as the Escape
    /// key: terminals send a sequence in one write, so 25 ms only separates them over
    /// slow links, and a person never notices it.
    static let escapeTimeoutMilliseconds: Int32 = 25

    private let input: Int32
    private let wakeUpRead: Int32
    private let wakeUpWrite: Int32
    private let continuation: AsyncStream<TerminalInput>.Continuation
    private let size: @Sendable () -> TerminalSize?
    private let resizeSource = NIOLockedValueBox<SendableDispatchSource<any DispatchSourceSignal>?>(nil)
    private let stopped = NIOLockedValueBox(false)

    init(
        input: Int32, continuation: AsyncStream<TerminalInput>.Continuation,
        size: @escaping @Sendable () -> TerminalSize?
    ) throws {
        let wakeUp = try FileDescriptorIO.makePipe()
        self.input = input
        self.wakeUpRead = wakeUp.read
        self.wakeUpWrite = wakeUp.write
        self.continuation = continuation
        self.size = size
    }

    deinit {
        close(wakeUpRead)
        close(wakeUpWrite)
    }

    func start() {
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { [weak self] in self?.reportSize() }
        source.resume()
        resizeSource.withLockedValue { $0 = SendableDispatchSource(source: source) }

        let thread = Thread { [self] in
            run()
        }
        thread.name = "confab-terminal-input"
        thread.start()
    }

    /// Ends the stream; the thread notices at once through the wake-up pipe.
    func stop() {
        let wasStopped = stopped.withLockedValue { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        resizeSource.withLockedValue { source in
            source?.source.cancel()
            source = nil
        }
        var byte: UInt8 = 1
        _ = write(wakeUpWrite, &byte, 1)
    }

    func reportSize() {
        if let size = size() {
            continuation.yield(.resize(width: size.width, height: size.height))
        }
    }

    private func run() {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        reading: while true {
            let timeout = decoder.hasPendingEscape ? Self.escapeTimeoutMilliseconds : -1
            switch FileDescriptorIO.waitReadable(input, orWakeUp: wakeUpRead, timeout: timeout) {
            case .timedOut:
                report(decoder.flushPendingEscape())
            case .readable:
                let count = read(input, &buffer, buffer.count)
                if count > 0 {
                    report(decoder.feed(buffer[..<count]))
                } else if count < 0, errno == EINTR || errno == EAGAIN {
                    continue
                } else {
                    // End of input or an error (the terminal hung up): nothing more comes.
                    report(decoder.flushPendingEscape())
                    break reading
                }
            case .wokenUp, .failed:
                break reading
            }
        }
        stop()
        continuation.finish()
    }

    private func report(_ keys: [Key]) {
        if !keys.isEmpty {
            continuation.yield(.keys(keys))
        }
    }
}
