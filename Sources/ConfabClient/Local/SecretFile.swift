import ConfabCrypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small secret in the data directory (the identity key, the network key), handled the
/// way ssh handles its keys: only a regular file of this user's, that nobody else may
/// read, is taken, and a write never leaves a half-written key behind.
public enum SecretFile {
    /// Why a secret file could not be read or written. Each key file turns this into its
    /// own message, which names the file and what to do.
    public enum Failure: Error, Equatable {
        case missing
        case alreadyExists
        case notRegularFile
        case ownedByAnotherUser
        case tooOpen(mode: mode_t)
        case tooLarge(limit: Int)
        /// A system call failed; the text is its `strerror`.
        case system(String)

        /// What follows "cannot read …:" or "cannot write …:".
        public var reason: String {
            switch self {
            case .missing: return "no such file"
            case .alreadyExists: return "it already exists"
            case .notRegularFile: return "not a regular file"
            case .ownedByAnotherUser: return "owned by another user"
            case .tooOpen(let mode): return "readable by others (mode \(String(mode, radix: 8)))"
            case .tooLarge(let limit): return "larger than \(limit) bytes"
            case .system(let text): return text
            }
        }

        static func system(errno code: Int32) -> Failure { .system(String(cString: strerror(code))) }
    }

    /// The file's bytes, at most `maxBytes`; the caller wipes them. A link is refused (it
    /// could point anywhere), and so is a file another user owns or may read.
    public static func load(from url: URL, maxBytes: Int) throws(Failure) -> [UInt8] {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            let code = errno
            throw code == ENOENT ? Failure.missing : Failure.system(errno: code)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }
        guard info.st_uid == getuid() else { throw .ownedByAnotherUser }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else { throw .tooOpen(mode: mode) }
        guard info.st_size <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        // What is read must be what was checked: not a link put in its place since, and
        // no FIFO that would hang the open.
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .system(errno: errno) }
        defer { close(fd) }
        var opened = stat()
        guard fstat(fd, &opened) == 0 else { throw .system(errno: errno) }
        guard opened.st_dev == info.st_dev, opened.st_ino == info.st_ino else {
            throw .system("the file was replaced while being read")
        }
        var buffer = [UInt8](repeating: 0, count: maxBytes + 1)
        defer { buffer.wipe() }
        var count = 0
        while count < buffer.count {
            let result = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if result == 0 { break }
            if result < 0 {
                let code = errno
                if code == EINTR { continue }
                throw .system(errno: code)
            }
            count += result
        }
        guard count <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        return Array(buffer[..<count])
    }

    /// Writes `contents` to a fresh file beside `url`, created 0600 (never through a link)
    /// and synced, then puts it in place: renamed over what is there when `replacing`,
    /// else linked, which fails if a file appeared meanwhile (two `init`s at once: the
    /// second loses, it never replaces the first's key). A crash leaves the old file or the
    /// complete new one, never part of it.
    public static func save(_ contents: [UInt8], to url: URL, replacing: Bool) throws(Failure) {
        let path = url.path
        var existing = stat()
        if !replacing, lstat(path, &existing) == 0 { throw .alreadyExists }
        let temporary = path + ".tmp-\(getpid())-\(Hex.encode(Random.bytes(4)))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .system(errno: errno) }
        // Each failure's errno is taken at once: the cleanup calls after it set their own.
        var failure = writeAll(contents, to: fd)
        if failure == nil, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == nil { failure = errno }
        if let failure {
            unlink(temporary)
            throw .system(errno: failure)
        }
        if replacing {
            guard rename(temporary, path) == 0 else {
                let code = errno
                unlink(temporary)
                throw .system(errno: code)
            }
        } else {
            let linked = link(temporary, path) == 0
            let code = errno
            unlink(temporary)
            guard linked else { throw code == EEXIST ? Failure.alreadyExists : Failure.system(errno: code) }
        }
        syncDirectory(of: url)
    }

    /// The errno of a failed write, or nil when every byte was written.
    private static func writeAll(_ contents: [UInt8], to fd: Int32) -> Int32? {
        var offset = 0
        while offset < contents.count {
            let result = contents.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if result < 0 {
                let code = errno
                if code == EINTR { continue }
                return code
            }
            offset += result
        }
        return nil
    }

    /// The new name is durable only once its directory is synced. The file is in place
    /// whatever this returns, so a failure here is not reported as a failed write.
    private static func syncDirectory(of url: URL) {
        let fd = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
