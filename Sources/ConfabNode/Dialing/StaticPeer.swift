import ConfabClient
import ConfabModel

/// `HOST:PORT` or `KEY@HOST:PORT`.
struct StaticPeer: Sendable, CustomStringConvertible {
    let key: NodeID?
    let address: HostPort
    /// As the person wrote it, for log lines.
    let description: String

    init(_ text: String) throws {
        description = text
        var rest = Substring(text)
        if let at = rest.firstIndex(of: "@") {
            guard let key = NodeID(hex: String(rest[..<at])) else {
                throw NodeError.badAddress(text, "bad key before @")
            }
            self.key = key
            rest = rest[rest.index(after: at)...]
        } else {
            key = nil
        }
        address = try Self.address(String(rest), defaultPort: HostPort.defaultSessionPort)
    }

    /// `text` as a host and port, or the node's error naming it.
    static func address(_ text: String, defaultPort: Int) throws -> HostPort {
        do {
            return try HostPort(text, defaultPort: defaultPort)
        } catch {
            throw NodeError.badAddress(text, error.description)
        }
    }
}
