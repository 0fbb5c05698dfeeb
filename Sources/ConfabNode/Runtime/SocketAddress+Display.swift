import ConfabClient
import ConfabNet
import NIOCore

extension SocketAddress {
    /// `127.0.0.1:7461` or `[fe80::1%eth0]:7461` rather than NIO's debugging form.
    var display: String { hostAndPort ?? "\(self)" }
}
