import ConfabCrypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The node's secret key on disk: a small text file, mode 0600, holding a format line and
/// the 32-byte Ed25519 seed in hex. A file others can read is refused, as ssh does.
public enum IdentityFile {
    static let header = "confab-identity-v1"

    public static func exists(at url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    public static func load(from url: URL) throws(IdentityError) -> SigningKeyPair {
        var info = stat()
        // lstat: a key file that is a link could point anywhere; it is refused.
        guard lstat(url.path, &info) == 0 else {
            if errno == ENOENT { throw .missing(url.path) }
            throw .unreadable(url.path, String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unreadable(url.path, "not a regular file") }
        guard info.st_uid == getuid() else { throw .unreadable(url.path, "owned by another user") }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else { throw .tooOpen(url.path, mode: mode) }
        guard info.st_size < 4096 else { throw .malformed(url.path) }
        guard var text = try? String(contentsOf: url, encoding: .utf8) else {
            throw .unreadable(url.path, "not a text file")
        }
        defer { text = "" }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.count >= 2, lines[0] == header, var seed = Hex.decode(lines[1]),
            seed.count == SigningKeyPair.seedLength
        else {
            throw .malformed(url.path)
        }
        defer { seed.wipe() }
        guard let keyPair = try? SigningKeyPair(seed: seed) else { throw .malformed(url.path) }
        return keyPair
    }

    /// Writes a new key file. Refuses to overwrite: losing a key loses an identity.
    /// Written to a temporary file created 0600 (never through a link), synced, then linked
    /// into place, which fails if a key file appeared meanwhile (two `init`s at once: the
    /// second loses, it never replaces the first's key). A crash leaves either no key file
    /// or a complete one.
    public static func create(_ keyPair: SigningKeyPair, at url: URL) throws(IdentityError) {
        guard !exists(at: url) else { throw .alreadyExists(url.path) }
        let temporary = url.path + ".tmp-\(getpid())-\(Hex.encode(Random.bytes(4)))"
        var seed = keyPair.seed.unsafeCopy
        defer { seed.wipe() }
        var contents = Array("\(header)\n\(Hex.encode(seed))\n".utf8)
        defer { contents.wipe() }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(url.path, String(cString: strerror(errno))) }
        defer { unlink(temporary) }
        let written = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == contents.count, synced else { throw .unwritable(url.path, String(cString: strerror(errno))) }
        guard link(temporary, url.path) == 0 else {
            if errno == EEXIST { throw .alreadyExists(url.path) }
            throw .unwritable(url.path, String(cString: strerror(errno)))
        }
    }
}

public struct IdentityError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case missing(String)
        case tooOpen(String, mode: mode_t)
        case malformed(String)
        case unreadable(String, String)
        case unwritable(String, String)
        case alreadyExists(String)
    }

    private let reason: Reason

    static func missing(_ path: String) -> IdentityError { IdentityError(reason: .missing(path)) }
    static func tooOpen(_ path: String, mode: mode_t) -> IdentityError {
        IdentityError(reason: .tooOpen(path, mode: mode))
    }
    static func malformed(_ path: String) -> IdentityError { IdentityError(reason: .malformed(path)) }
    static func unreadable(_ path: String, _ why: String) -> IdentityError {
        IdentityError(reason: .unreadable(path, why))
    }
    static func unwritable(_ path: String, _ why: String) -> IdentityError {
        IdentityError(reason: .unwritable(path, why))
    }
    static func alreadyExists(_ path: String) -> IdentityError { IdentityError(reason: .alreadyExists(path)) }

    public var isMissing: Bool {
        if case .missing = reason { return true }
        return false
    }

    public var description: String {
        switch reason {
        case .missing:
            return "no identity here yet — run \"confab init --name YOUR_NAME\" first"
        case .tooOpen(let path, let mode):
            return "key file \(path) is readable by others (mode \(String(mode, radix: 8))); "
                + "run \"chmod 600 \(path)\" and try again"
        case .malformed(let path):
            return "key file \(path) is damaged or not a Confab identity; restore it from a backup"
        case .unreadable(let path, let why):
            return "cannot read key file \(path): \(why)"
        case .unwritable(let path, let why):
            return "cannot write key file \(path): \(why)"
        case .alreadyExists(let path):
            return "an identity already exists at \(path); Confab never overwrites a key"
        }
    }
}
