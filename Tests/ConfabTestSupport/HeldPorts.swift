import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A UDP port for one test's discovery beacons, picked by the OS and held by this process
/// for as long as the value lives: the test's nodes, doctors and taps bind it beside this
/// socket, and no other program can take it from them in between, even while a node
/// restarts.
///
/// It is bound with no reuse option, so the OS gives out a port that no socket holds in any
/// way; only then is it opened to sharing. Bound with the reuse options, it could be given a
/// port that sockets of the same user already share with those options (on Linux a port-0
/// bind skips only the ports it could not share): another test's nodes. Closed instead of
/// held, it could be taken by another program before the nodes bind it.
///
/// It binds the loopback broadcast address, not the wildcard: a port free there is free on
/// 0.0.0.0 too, and the socket keeps any plain bind off it, but a datagram sent to
/// 127.0.0.1 on the port goes to a node, never to this socket (which reads nothing).
public final class DiscoveryPort: Sendable {
    public let number: Int
    private let descriptor: Int32

    public init(host: String = "127.255.255.255") throws {
        let (descriptor, number) = try boundToPortZero(SocketType.datagram, host: host)
        do {
            var on: Int32 = 1
            // Linux lets sockets share a UDP port when all of them have SO_REUSEADDR;
            // BSD-derived systems need SO_REUSEPORT.
            #if canImport(Darwin)
            let option = SO_REUSEPORT
            #else
            let option = SO_REUSEADDR
            #endif
            guard setsockopt(descriptor, SOL_SOCKET, option, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw ConfabBinary.Failure("opening UDP port \(number) to sharing: errno \(errno)")
            }
        } catch {
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.number = number
    }

    deinit { close(descriptor) }
}

/// A TCP port on which connections are refused for as long as the value lives: a socket
/// bound to it that never listens. A port merely bound and closed could be taken by
/// another program before the test connects, and the test would meet whatever answers.
public final class RefusingPort: Sendable {
    public let number: Int
    private let descriptor: Int32

    public init(host: String = "127.0.0.1") throws {
        (descriptor, number) = try boundToPortZero(SocketType.stream, host: host)
    }

    deinit { close(descriptor) }
}

private enum SocketType {
    #if canImport(Glibc)
    static let datagram = SOCK_DGRAM.rawValue
    static let stream = SOCK_STREAM.rawValue
    #else
    static let datagram = SOCK_DGRAM
    static let stream = SOCK_STREAM
    #endif
}

/// A new IPv4 socket of `type` bound to `host` on a port the OS picks, and that port.
private func boundToPortZero(_ type: some BinaryInteger, host: String) throws -> (Int32, Int) {
    let descriptor = socket(AF_INET, Int32(type), 0)
    guard descriptor >= 0 else { throw ConfabBinary.Failure("socket: errno \(errno)") }
    do {
        return (descriptor, try bindToPortZero(descriptor, host: host))
    } catch {
        close(descriptor)
        throw error
    }
}

/// Binds `descriptor` to `host` (IPv4) on a port the OS picks, and returns that port.
private func bindToPortZero(_ descriptor: Int32, host: String) throws -> Int {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
        throw ConfabBinary.Failure("not an IPv4 address: \(host)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            guard bind(descriptor, pointer, length) == 0 else { return false }
            return getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard bound else { throw ConfabBinary.Failure("binding \(host) to port 0: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}
