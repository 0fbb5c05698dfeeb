import ConfabCrypto
import ConfabWire
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DataDirectory {
    /// The private network this node joins unless told otherwise (`confab network use`).
    public var networkKeyFile: URL { url.appendingPathComponent("network.key") }
}

/// The configured network key on disk: one line of 64 hex characters, mode 0600. It is a
/// shared secret (anyone holding it can join the network), so a file others can read is
/// refused, as for the identity key.
public enum NetworkKeyFile {
    /// A key line is 64 characters; anything much longer is not a key file.
    static let maxBytes = 1024

    /// The key, or nil when there is no file.
    public static func load(from url: URL) throws(NetworkKeyError) -> NetworkKey? {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw .unreadable(url.path, String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .malformed(url.path, "not a regular file") }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else { throw .tooOpen(url.path, mode: mode) }
        guard info.st_size <= maxBytes else { throw .malformed(url.path, "larger than \(maxBytes) bytes") }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .unreadable(url.path, "cannot read it")
        }
        var bytes = [UInt8](data.prefix(maxBytes))
        defer { bytes.wipe() }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformed(url.path, "not text") }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard lines.count == 1, lines[0].count == 2 * NetworkKey.length, let key = NetworkKey(text: lines[0]) else {
            throw .malformed(url.path, "expected one line of 64 hex characters")
        }
        return key
    }

    /// Replaces the file atomically: written 0600 beside it, synced, renamed into place.
    public static func save(_ key: NetworkKey, to url: URL) throws(NetworkKeyError) {
        // A fresh name, created exclusively and never through a link: nobody can have
        // prepared the file this key is written to.
        let temporary = url.path + ".tmp-\(getpid())-\(Hex.encode(Random.bytes(4)))"
        var contents = Array((key.hex + "\n").utf8)
        defer { contents.wipe() }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(url.path, String(cString: strerror(errno))) }
        let written = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == contents.count, synced, rename(temporary, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .unwritable(url.path, reason)
        }
    }

    /// Removes the file, so the default network applies again. Absent is fine.
    public static func remove(at url: URL) throws(NetworkKeyError) {
        guard unlink(url.path) == 0 || errno == ENOENT else {
            throw .unwritable(url.path, String(cString: strerror(errno)))
        }
    }
}
