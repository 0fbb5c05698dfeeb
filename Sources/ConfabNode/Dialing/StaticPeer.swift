import ConfabClient
import ConfabModel

/// `HOST:PORT` or `KEY@HOST:PORT`.
struct StaticPeer: Sendable, CustomStringConvertible {
    let key: NodeID?
    let host: String
    let port: Int
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
        (host, port) = try Self.split(String(rest), defaultPort: 7461)
    }

    static func split(_ text: String, defaultPort: Int) throws -> (String, Int) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return (host, defaultPort) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) else {
                throw NodeError.badAddress(text, "bad port")
            }
            return (host, port)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard !parts.isEmpty, !parts[0].isEmpty, parts.count <= 2 else {
            throw NodeError.badAddress(text, "want HOST:PORT")
        }
        if parts.count == 1 { return (String(parts[0]), defaultPort) }
        guard let port = Int(parts[1]), (1...65535).contains(port) else { throw NodeError.badAddress(text, "bad port") }
        return (String(parts[0]), port)
    }
}
