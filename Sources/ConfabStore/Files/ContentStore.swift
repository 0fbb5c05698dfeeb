import ConfabModel
import Foundation

/// Files' encrypted content, on disk beside the database (Protocol.md §17.6): one file per
/// file id in `files/`, each chunk at its slot, allocated in full before the first chunk is
/// written. The database records which chunks are held, and only after their bytes are
/// synced, so a crash loses at most chunks that were never recorded.
///
/// Stateless apart from the directory: safe from any thread. Callers never write the same
/// file id from two threads at once (the node has one writer).
public final class ContentStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public func url(of file: FileID) -> URL { directory.appendingPathComponent(file.hex) }

    func ensureDirectory() throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Bytes free for this user on the disk holding the store.
    public func availableBytes() -> UInt64? {
        var stats = statvfs()
        guard statvfs(directory.path, &stats) == 0 || statvfs(directory.deletingLastPathComponent().path, &stats) == 0
        else { return nil }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
    }

    /// Makes room for every chunk of a file about to be fetched: after this, writing a chunk
    /// does not run out of space (short of a sparse file system), and a full disk is known
    /// before anything is asked for.
    public func allocate(_ file: FileID, layout: FileLayout) throws(ContentStoreError) {
        do { try ensureDirectory() } catch { throw .io("create", path: directory.path, errno: errno) }
        let path = url(of: file).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io("create", path: path, errno: errno) }
        defer { close(fd) }
        let size = off_t(layout.storedSize)
        guard size > 0 else { return }
        let rc = posix_fallocate(fd, 0, size)
        if rc == ENOSPC || rc == EDQUOT {
            throw .diskFull(needed: layout.storedSize, available: availableBytes() ?? 0, directory: directory.path)
        }
        // A file system without fallocate (tmpfs has it; some network ones do not): the
        // length at least, and a full disk then shows at the first write that fails.
        if rc != 0, ftruncate(fd, size) != 0 { throw .io("size", path: path, errno: errno) }
    }

    /// Writes chunks of one file and syncs them: when this returns, their bytes are on disk.
    public func write(
        _ chunks: [(index: Int, data: [UInt8])], to file: FileID, layout: FileLayout
    )
        throws(ContentStoreError)
    {
        let path = url(of: file).path
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io("open", path: path, errno: errno) }
        defer { close(fd) }
        for chunk in chunks {
            try Self.writeAll(fd, chunk.data, at: off_t(layout.storedOffset(of: chunk.index)), path: path)
        }
        guard fdatasync(fd) == 0 else { throw .io("sync", path: path, errno: errno) }
    }

    /// Chunk `index` as stored, or nil when the file is not there.
    public func read(_ file: FileID, index: Int, layout: FileLayout) throws(ContentStoreError) -> [UInt8] {
        let path = url(of: file).path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io("open", path: path, errno: errno) }
        defer { close(fd) }
        return try Self.readAll(
            fd, count: layout.cipherLength(of: index), at: off_t(layout.storedOffset(of: index)), path: path)
    }

    public func remove(_ file: FileID) {
        unlink(url(of: file).path)
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: off_t, path: String) throws(ContentStoreError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes {
                pwrite(fd, $0.baseAddress! + done, bytes.count - done, offset + off_t(done))
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw .io("write", path: path, errno: n < 0 ? errno : EIO) }
            done += n
        }
    }

    static func readAll(_ fd: Int32, count: Int, at offset: off_t, path: String) throws(ContentStoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + done, count - done, offset + off_t(done))
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                if n == 0 { throw .damaged("\(path) is shorter than its chunks") }
                throw .io("read", path: path, errno: errno)
            }
            done += n
        }
        return bytes
    }
}
