#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking reads and whole writes on a file descriptor, retried through interruptions.
enum FileDescriptorIO {
    /// Writes every byte: a terminal may take them in pieces, a signal may interrupt, and
    /// a descriptor someone else made non-blocking answers EAGAIN until it drains.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written >= 0 {
                offset += written
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&descriptor, 1, -1)
            default:
                throw TerminalError.systemCall("write", errno: errno)
            }
        }
    }

    /// A pipe closed on exec, for waking a thread or leaving signal context.
    static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw TerminalError.systemCall("pipe", errno: errno) }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    /// Waits up to `timeout` milliseconds (-1: no limit) for `fd` or `wakeUp` to be
    /// readable.
    static func waitReadable(_ fd: Int32, orWakeUp wakeUp: Int32, timeout: Int32) -> Readiness {
        var descriptors = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeUp, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&descriptors, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed
            }
            if ready == 0 { return .timedOut }
            if descriptors[1].revents != 0 { return .wokenUp }
            if descriptors[0].revents & Int16(POLLNVAL) != 0 { return .failed }
            return .readable
        }
    }

    enum Readiness {
        case readable, timedOut, wokenUp, failed
    }
}
