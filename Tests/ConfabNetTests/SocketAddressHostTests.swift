import NIOCore
import Testing

@testable import ConfabNet

/// Addresses as peers are dialled at and shown: plain IPv4 through a dual-stack socket,
/// link-local IPv6 with its interface.
@Suite struct SocketAddressHostTests {
    @Test func anIPv4PeerSeenThroughADualStackSocketIsPlainIPv4() throws {
        let mapped = try SocketAddress(ipAddress: "::ffff:10.0.0.2", port: 50_000)
        #expect(mapped.hostForDialing == "10.0.0.2")
        #expect(mapped.hostAndPort == "10.0.0.2:50000")
    }

    @Test func aLinkLocalAddressKeepsItsInterface() throws {
        guard case .v6(let v6) = try SocketAddress(ipAddress: "fe80::1", port: 7461) else {
            Issue.record("not IPv6")
            return
        }
        // Loopback's index is 1 on Linux; the name is whatever the kernel calls it.
        var raw = v6.address
        raw.sin6_scope_id = 1
        let scoped = SocketAddress(raw, host: "fe80::1")
        #expect(scoped.hostForDialing == "fe80::1%lo")
        #expect(scoped.hostAndPort == "[fe80::1%lo]:7461")
        #expect(try SocketAddress(ipAddress: "2001:db8::1", port: 7461).hostAndPort == "[2001:db8::1]:7461")
        #expect(try SocketAddress(ipAddress: "10.1.2.3", port: 7461).hostAndPort == "10.1.2.3:7461")
    }
}
