import NIOCore

extension SocketAddress {
    /// `127.0.0.1:7461` rather than NIO's debugging form.
    var display: String {
        guard let ip = ipAddress, let port else { return "\(self)" }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}
