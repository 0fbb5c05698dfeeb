import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// While the chat owns the terminal, anything written to standard error (the in-process
/// node's logs, a library's warning) would tear the screen: it goes to a log file in the
/// data directory instead, and standard error comes back when the chat ends.
public final class StandardErrorRedirect {
    private var saved: Int32 = -1
    public let path: String

    /// Appends to `path` (created 0600). Throws if the file cannot be opened.
    public init(to path: String) throws {
        self.path = path
        // Never through a link: a link planted in the data directory could make the log
        // append to any file the user can write.
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        saved = dup(STDERR_FILENO)
        dup2(fd, STDERR_FILENO)
        close(fd)
    }

    /// Gives standard error back; safe to call twice.
    public func restore() {
        guard saved >= 0 else { return }
        dup2(saved, STDERR_FILENO)
        close(saved)
        saved = -1
    }

    deinit { restore() }
}
