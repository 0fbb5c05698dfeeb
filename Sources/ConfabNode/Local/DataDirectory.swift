import Foundation

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

    /// Creates the directory (owner-only: it holds secrets and private messages).
    public func create() throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    private static func expand(_ path: String, _ environment: [String: String]) -> String {
        guard path.hasPrefix("~") else { return path }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + path.dropFirst()
    }
}
