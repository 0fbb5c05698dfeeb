import ConfabClient
import Testing

@testable import ConfabNode

/// What a node remembers as a peer's address (Protocol.md §12, Hello): the IP the session
/// came from with the port the peer's Hello names.
@Suite struct PeerAddressTests {
    @Test func theHelloPortWithTheSessionsIP() throws {
        #expect(Node.listenAddress(host: "192.0.2.7", port: 7461) == "192.0.2.7:7461")
        // IPv6 in brackets, so that the address splits back into host and port.
        #expect(Node.listenAddress(host: "2001:db8::7", port: 7461) == "[2001:db8::7]:7461")
        #expect(try StaticPeer("[2001:db8::7]:7461").address.host == "2001:db8::7")
    }

    @Test func portZeroIsNoAddress() {
        // A peer that accepts no sessions says so with 0; "192.0.2.7:0" could never be dialled.
        #expect(Node.listenAddress(host: "192.0.2.7", port: 0) == nil)
        #expect(Node.listenAddress(host: nil, port: 7461) == nil)
    }
}
