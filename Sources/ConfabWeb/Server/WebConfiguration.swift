import Foundation

/// Where and how the node serves the web app (`--web`, `--no-web`, `--web-password-file`).
public struct WebConfiguration: Sendable, Equatable {
    /// The app's default address: loopback only, so nothing on the network reaches it.
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 7462

    public var host: String
    public var port: Int
    /// The password a login form must be given, read from `--web-password-file`; required
    /// to serve on anything but loopback.
    public var password: String?

    public init(host: String = Self.defaultHost, port: Int = Self.defaultPort, password: String? = nil) {
        self.host = host
        self.port = port
        self.password = password
    }

    /// `HOST:PORT`, `[V6]:PORT`, `HOST` or `:PORT` (the other half as the default).
    public init(address: String, password: String? = nil) throws(WebError) {
        var host = Self.defaultHost
        var port = Self.defaultPort
        var text = Substring(address)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .badAddress(address) }
            host = String(text[text.index(after: text.startIndex)..<close])
            text = text[text.index(after: close)...]
            if !text.isEmpty {
                guard text.hasPrefix(":"), let value = Int(text.dropFirst()) else { throw .badAddress(address) }
                port = value
            }
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon, let value = Int(text[text.index(after: colon)...]) else {
                throw .badAddress(address)
            }
            if colon != text.startIndex { host = String(text[..<colon]) }
            port = value
        } else if !text.isEmpty {
            host = String(text)
        }
        guard (1...65_535).contains(port), !host.isEmpty else { throw .badAddress(address) }
        self.init(host: host, port: port, password: password)
        guard isLoopback || password != nil else { throw .needsPassword(address) }
    }

    /// Whether only this machine can reach the address.
    public var isLoopback: Bool {
        Self.isLoopback(host)
    }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.first == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The address a browser is given: a wildcard bind is reached on loopback.
    public var browserAddress: String {
        let shown: String
        switch host {
        case "0.0.0.0": shown = "127.0.0.1"
        case "::": shown = "[::1]"
        default: shown = host.contains(":") ? "[\(host)]" : host
        }
        return "http://\(shown):\(port)/"
    }
}
