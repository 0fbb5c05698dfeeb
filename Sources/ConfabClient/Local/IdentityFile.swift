import ConfabCrypto
import Foundation

/// The node's secret key on disk: a small text file, mode 0600, holding a format line and
/// the 32-byte Ed25519 seed in hex. A file others can read is refused, as ssh does.
public enum IdentityFile {
    static let header = "confab-identity-v1"

    public static func exists(at url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    /// Fails with what to do when there is no identity yet, before anything is created.
    public static func requireExisting(at url: URL) throws(IdentityError) {
        guard exists(at: url) else { throw .missing(url.path) }
    }

    /// A key line and its header are under 100 bytes; anything much larger is not a key file.
    static let maxBytes = 4096

    public static func load(from url: URL) throws(IdentityError) -> SigningKeyPair {
        var bytes: [UInt8]
        do throws(SecretFile.Failure) {
            bytes = try SecretFile.load(from: url, maxBytes: maxBytes)
        } catch {
            switch error {
            case .missing: throw .missing(url.path)
            case .tooOpen(let mode): throw .tooOpen(url.path, mode: mode)
            case .tooLarge: throw .malformed(url.path)
            default: throw .unreadable(url.path, error.reason)
            }
        }
        defer { bytes.wipe() }
        guard var text = String(validating: bytes, as: UTF8.self) else {
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
    public static func create(_ keyPair: SigningKeyPair, at url: URL) throws(IdentityError) {
        var seed = keyPair.seed.unsafeCopy
        defer { seed.wipe() }
        var contents = Array("\(header)\n\(Hex.encode(seed))\n".utf8)
        defer { contents.wipe() }
        do throws(SecretFile.Failure) {
            try SecretFile.save(contents, to: url, replacing: false)
        } catch {
            if error == .alreadyExists { throw .alreadyExists(url.path) }
            throw .unwritable(url.path, error.reason)
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
        case .missing(let path):
            let directory = (path as NSString).deletingLastPathComponent
            return "no identity in \(directory) yet — run \"confab init --name YOUR_NAME\" first "
                + "(with the same --data, if you gave one)"
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
