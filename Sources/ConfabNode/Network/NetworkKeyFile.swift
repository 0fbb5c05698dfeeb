import ConfabClient
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
        var bytes: [UInt8]
        do throws(SecretFile.Failure) {
            bytes = try SecretFile.load(from: url, maxBytes: maxBytes)
        } catch {
            switch error {
            case .missing: return nil
            case .tooOpen(let mode): throw .tooOpen(url.path, mode: mode)
            case .notRegularFile, .tooLarge: throw .malformed(url.path, error.reason)
            default: throw .unreadable(url.path, error.reason)
            }
        }
        defer { bytes.wipe() }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformed(url.path, "not text") }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard lines.count == 1, lines[0].count == 2 * NetworkKey.length, let key = NetworkKey(text: lines[0]) else {
            throw .malformed(url.path, "expected one line of 64 hex characters")
        }
        return key
    }

    /// Replaces the file atomically.
    public static func save(_ key: NetworkKey, to url: URL) throws(NetworkKeyError) {
        var contents = Array((key.hex + "\n").utf8)
        defer { contents.wipe() }
        do throws(SecretFile.Failure) {
            try SecretFile.save(contents, to: url, replacing: true)
        } catch {
            throw .unwritable(url.path, error.reason)
        }
    }

    /// Removes the file, so the default network applies again. Absent is fine.
    public static func remove(at url: URL) throws(NetworkKeyError) {
        guard unlink(url.path) == 0 || errno == ENOENT else {
            throw .unwritable(url.path, String(cString: strerror(errno)))
        }
    }
}
