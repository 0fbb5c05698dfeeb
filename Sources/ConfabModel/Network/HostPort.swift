/// A host and a port as people write them and as peers are dialled — `10.0.0.2:7461`,
/// `[fe80::1%eth0]:7461` — parsed once, shown one way (an IPv6 host in brackets).
public struct HostPort: Sendable, Hashable, CustomStringConvertible {
    /// Where a node accepts sessions unless told otherwise.
    public static let defaultSessionPort = 7461
    /// Where beacons are sent and listened for unless told otherwise.
    public static let defaultDiscoveryPort = 7460

    public let host: String
    public let port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT` or `[IPV6]:PORT`; a bare host takes `defaultPort` when one is given.
    /// `ports` is what may follow the colon: 0 means "any free port" where binding allows it.
    public init(_ text: String, defaultPort: Int? = nil, ports: ClosedRange<Int> = 1...65535) throws(Invalid) {
        let hostText: Substring
        let portText: Substring?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            hostText = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { throw Invalid(text: text, reason: .shape) }
            portText = rest.isEmpty ? nil : rest.dropFirst()
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            // Two colons or more without brackets: an IPv6 address whose port cannot be told apart.
            guard parts.count <= 2 else { throw Invalid(text: text, reason: .shape) }
            hostText = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
        }
        guard !hostText.isEmpty else { throw Invalid(text: text, reason: .shape) }
        let port: Int
        if let portText {
            guard let number = Int(portText), ports.contains(number) else { throw Invalid(text: text, reason: .port) }
            port = number
        } else {
            guard let defaultPort else { throw Invalid(text: text, reason: .shape) }
            port = defaultPort
        }
        self.init(host: String(hostText), port: port)
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Why a text is not a host and a port.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public enum Reason: Sendable, Equatable {
            /// Not `HOST:PORT` (or `[IPV6]:PORT`).
            case shape
            /// The port is not a number in range.
            case port
        }

        public let text: String
        public let reason: Reason

        /// What is wrong, to follow "\"TEXT\" is not a usable address: ".
        public var description: String {
            switch reason {
            case .shape: "want HOST:PORT (an IPv6 address in brackets: [fe80::1%eth0]:7461)"
            case .port: "bad port"
            }
        }
    }
}
