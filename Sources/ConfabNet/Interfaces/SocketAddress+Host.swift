import ConfabModel
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension SocketAddress {
    /// The IP address as a peer is dialled at and shown: an IPv4 peer seen through a
    /// dual-stack socket as plain IPv4 (`10.0.0.2`, not `::ffff:10.0.0.2`), and a
    /// link-local IPv6 address with the interface it is reachable on (`fe80::1%eth0`),
    /// without which it cannot be dialled.
    public var hostForDialing: String? {
        guard case .v6(let v6) = self else { return ipAddress }
        let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return "\(bytes[12]).\(bytes[13]).\(bytes[14]).\(bytes[15])"
        }
        guard let ip = ipAddress else { return nil }
        let scope = v6.address.sin6_scope_id
        guard scope != 0 else { return ip }
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(scope, &name) != nil else { return "\(ip)%\(scope)" }
        let nameBytes = name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return "\(ip)%\(String(decoding: nameBytes, as: UTF8.self))"
    }

    /// `HOST:PORT`, with brackets around an IPv6 host: `10.0.0.2:7461`, `[fe80::1%eth0]:7461`.
    public var hostAndPort: String? {
        guard let host = hostForDialing, let port else { return nil }
        return HostPort(host: host, port: port).description
    }
}
