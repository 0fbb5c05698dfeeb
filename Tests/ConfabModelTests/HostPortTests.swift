import ConfabModel
import Testing

/// Addresses as people type them and as peers are dialled: parsed once, shown one way.
@Suite struct HostPortTests {
    @Test(arguments: [
        ("10.0.0.2:7461", "10.0.0.2", 7461),
        ("[fe80::1%eth0]:7000", "fe80::1%eth0", 7000),
        ("[::]:7461", "::", 7461),
        ("relay.local:1", "relay.local", 1),
    ])
    func aHostAndAPortAreReadAndShownTheSameWay(text: String, host: String, port: Int) throws {
        let address = try HostPort(text)
        #expect(address.host == host && address.port == port)
        #expect(address.description == text)
    }

    @Test func aBareHostTakesTheDefaultPortOnlyWhenThereIsOne() throws {
        #expect(try HostPort("10.0.0.2", defaultPort: HostPort.defaultSessionPort).port == 7461)
        #expect(try HostPort("[2001:db8::7]", defaultPort: 9).description == "[2001:db8::7]:9")
        let bare = #expect(throws: HostPort.Invalid.self) { try HostPort("10.0.0.2") }
        #expect(bare?.reason == .shape)
    }

    @Test func portZeroOnlyWhereAllowed() throws {
        let zero = #expect(throws: HostPort.Invalid.self) { try HostPort("127.0.0.1:0") }
        #expect(zero?.reason == .port)
        #expect(try HostPort("127.0.0.1:0", ports: 0...65535).port == 0)
    }

    @Test(arguments: ["", ":7461", "fe80::1:7461", "[fe80::1]7461", "host:port", "host:70000", "host:-1", "[]:1"])
    func whatIsNotAnAddressIsRefused(text: String) {
        #expect(throws: HostPort.Invalid.self) { try HostPort(text, defaultPort: 7461) }
    }
}
