import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a node keeps its files: `--data DIR`, else `$CONFAB_HOME`, else
/// `$XDG_DATA_HOME/confab`, else `~/.local/share/confab`.
public struct DataDirectory: Sendable, Equatable {
    public let url: URL

    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    public static func resolve(
        option: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> DataDirectory {
        if let option, !option.isEmpty { return DataDirectory(url: URL(fileURLWithPath: expand(option, environment))) }
        if let home = environment["CONFAB_HOME"], !home.isEmpty {
            return DataDirectory(url: URL(fileURLWithPath: expand(home, environment)))
        }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return DataDirectory(url: URL(fileURLWithPath: xdg).appendingPathComponent("confab"))
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return DataDirectory(url: URL(fileURLWithPath: home).appendingPathComponent(".local/share/confab"))
    }

    public var path: String { url.path }
    public var identityFile: URL { url.appendingPathComponent("identity.key") }
    public var databaseFile: URL { url.appendingPathComponent("confab.sqlite") }
    /// The running node's control socket (Protocol.md §13).
    public var controlSocket: URL { url.appendingPathComponent("control.sock") }

    /// Creates the directory (owner-only: it holds secrets and private messages). An
    /// existing one must belong to this user; one that others may enter is made owner-only
    /// (`--data /tmp/x` would otherwise leave the store open to every local user).
    public func create() throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw DataDirectoryError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_uid == getuid() else {
            throw DataDirectoryError(
                "the data directory \(path) belongs to another user; choose one of your own with --data DIR")
        }
        if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw DataDirectoryError(
                "the data directory \(path) is open to other users and cannot be made private: run \"chmod 700 \(path)\""
            )
        }
    }

    private static func expand(_ path: String, _ environment: [String: String]) -> String {
        guard path.hasPrefix("~") else { return path }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + path.dropFirst()
    }
}

/// The data directory cannot be used safely; the text says why and what to do.
public struct DataDirectoryError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
