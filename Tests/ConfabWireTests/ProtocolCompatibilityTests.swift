import Testing

@testable import ConfabWire

/// Protocol.md §12.1: two nodes sync when each one's version is at least the other's
/// oldest.
@Suite struct ProtocolCompatibilityTests {
    @Test func versionsThatOverlapSyncAndOthersDoNot() {
        let cases: [(UInt32, UInt32, ProtocolCompatibility)] = [
            (2, 1, .same), (1, 1, .older(1)), (3, 2, .newer(3)), (3, 1, .newer(3)), (3, 3, .tooNew(3)),
        ]
        for (version, oldest, expected) in cases {
            let found = ProtocolCompatibility(peerVersion: version, peerOldest: oldest, mine: 2, oldest: 1)
            #expect(found == expected, "version \(version), oldest \(oldest)")
        }
        #expect(ProtocolCompatibility(peerVersion: 1, peerOldest: 1, mine: 3, oldest: 2) == .tooOld(1))
        #expect(!ProtocolCompatibility.tooNew(3).syncs)
        #expect(ProtocolCompatibility.older(1).syncs)
    }

    /// Confab 0.1.0's Hello has no oldest version: it reads as 1.
    @Test func aHelloWithoutAnOldestVersionSaysOne() throws {
        let hello = SessionMessage.Hello(version: 1, oldestVersion: 0, displayName: "bob", role: .person, listenPort: 0)
        let decoded = try #require(try SessionCodec.decode(SessionCodec.encode(.hello(hello))))
        guard case .hello(let read) = decoded else {
            Issue.record("not a hello")
            return
        }
        #expect(read.oldestVersion == 1)
        #expect(ProtocolCompatibility(read) == .older(1))
    }
}
