import ConfabClient
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// One node process per data directory: an exclusive `flock` on `node.lock`, which the
/// kernel releases if the process dies, with the holder's pid written inside for the
/// message a second node prints.
public final class NodeLock: Sendable {
    /// The locked file, until released.
    private let fd: NIOLockedValueBox<Int32?>

    public init(directory: DataDirectory) throws {
        let path = directory.url.appendingPathComponent("node.lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw NodeError.lockFailed(path, String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &buffer, buffer.count, 0)
            close(fd)
            let pid = count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : "?"
            throw NodeError.alreadyRunning(directory.path, pid: pid.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        self.fd = NIOLockedValueBox(fd)
    }

    /// Lets another node open the directory: a node that stopped no longer holds it, even
    /// while its object lives on.
    public func release() {
        guard
            let fd = fd.withLockedValue({ fd in
                defer { fd = nil }; return fd
            })
        else { return }
        flock(fd, LOCK_UN)
        close(fd)
    }

    deinit {
        release()
    }
}
