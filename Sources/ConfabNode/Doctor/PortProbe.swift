import ConfabClient
import ConfabModel
import ConfabNet
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the TCP port sessions would be accepted on can be bound now: bound plainly (no
/// SO_REUSEADDR, so a socket in the way is found) and closed at once. And the words for a
/// socket error, shared by every check of the doctor.
enum PortProbe {
    /// `host` as `--listen` gives it: "::" falls back to IPv4 where the machine has no IPv6,
    /// as the node does.
    static func tcp(host: String, port: Int, group: any EventLoopGroup) async -> DoctorFacts.Port {
        var host = host
        var shown = HostPort(host: host, port: port).description
        do {
            let channel: any Channel
            do {
                channel = try await ServerBootstrap(group: group).bind(to: SocketAddress(ipAddress: host, port: port))
                    .get()
            } catch let error as IOError where host == "::" && error.errnoCode == EAFNOSUPPORT {
                host = "0.0.0.0"
                shown = HostPort(host: host, port: port).description
                channel = try await ServerBootstrap(group: group).bind(to: SocketAddress(ipAddress: host, port: port))
                    .get()
            }
            try? await channel.close()
            return DoctorFacts.Port(proto: "tcp", address: shown, port: port, state: .free)
        } catch {
            let (state, reason) = classify(error)
            return DoctorFacts.Port(proto: "tcp", address: shown, port: port, state: state, error: reason)
        }
    }

    /// What a failed bind means for the port.
    static func classify(_ error: any Error) -> (DoctorFacts.Port.State, String) {
        let reason = ConnectFailure.describe(error)
        guard let code = ConnectFailure.errno(of: error) else { return (.failed, reason) }
        switch code {
        case EADDRINUSE: return (.inUse, reason)
        case EACCES, EPERM: return (.denied, reason)
        case EAFNOSUPPORT, EADDRNOTAVAIL, EPROTONOSUPPORT: return (.unsupported, reason)
        default: return (.failed, reason)
        }
    }
}
