#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines for the person or the script reading standard output and standard error.
///
/// SwiftNIO ignores SIGPIPE, so once a command has started it, a reader that went away
/// (`confab status | head -1`) makes a write fail with EPIPE, on which Foundation's
/// `FileHandle.write` traps with a crash report. Here the process ends as SIGPIPE would
/// have ended it: quietly, with the status a shell expects of a pipe's writer.
public enum StandardStreams {
    public static func out(_ text: String) {
        do {
            try FileDescriptorIO.writeAll(STDOUT_FILENO, Array(text.utf8))
        } catch let error as TerminalError where error.isBrokenPipe {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
            exit(128 + SIGPIPE)
        } catch {
            // Output the person asked for and did not get (a full disk under a redirect)
            // is a failure, never a silent success.
            err("confab: could not write the output: \(error)\n")
            exit(1)
        }
    }

    /// Nowhere is left to report a failure to write a diagnostic: it is dropped.
    public static func err(_ text: String) {
        try? FileDescriptorIO.writeAll(STDERR_FILENO, Array(text.utf8))
    }
}
