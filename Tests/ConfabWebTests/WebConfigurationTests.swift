import Testing

@testable import ConfabWeb

@Suite struct WebConfigurationTests {
    @Test func addressesAreRead() throws {
        #expect(try WebConfiguration(address: "127.0.0.1:8000") == WebConfiguration(host: "127.0.0.1", port: 8000))
        #expect(try WebConfiguration(address: ":8000") == WebConfiguration(host: "127.0.0.1", port: 8000))
        #expect(try WebConfiguration(address: "localhost") == WebConfiguration(host: "localhost", port: 7462))
        #expect(try WebConfiguration(address: "[::1]:7000") == WebConfiguration(host: "::1", port: 7000))
        #expect(WebConfiguration().browserAddress == "http://127.0.0.1:7462/")
        #expect(WebConfiguration(host: "::1", port: 7000).browserAddress == "http://[::1]:7000/")
    }

    @Test(arguments: ["127.0.0.1:0", "127.0.0.1:70000", "127.0.0.1:x", "[::1", "a:b:c"])
    func badAddressesAreRefusedWithTheirFix(_ address: String) {
        #expect {
            try WebConfiguration(address: address)
        } throws: { error in
            "\(error)".contains("give HOST:PORT")
        }
    }

    /// Beyond loopback the app is one guess away from anyone on the network: only with a
    /// password.
    @Test(arguments: ["0.0.0.0:7462", "192.168.1.5:7462", "[::]:7462", "myhost:7462"])
    func anythingButLoopbackNeedsAPassword(_ address: String) throws {
        #expect {
            try WebConfiguration(address: address)
        } throws: { error in
            "\(error)".contains("--web-password-file")
        }
        #expect(try WebConfiguration(address: address, password: "secret").password == "secret")
    }
}
