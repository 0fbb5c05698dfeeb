import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOPosix
import Testing

@testable import ConfabNet

/// A Bye reason is the peer's text: logged, it must not forge log lines or drive the
/// terminal the log is read on.
@Suite("Bye reasons in logs", .timeLimit(.minutes(1)))
struct ByeLogTests {
    @Test func aByeReasonIsLoggedEscaped() async throws {
        let hostile = "bye\u{1B}[2K\r\nnotice: session refused\u{9B}1m\u{202E}"
        try await withEventLoopGroup { group in
            let alice = try await TestNode.start(Keys.alice, group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)
            let session = try await bob.dial(alice)
            try await eventually("opened") { alice.delegate.opened.count == 1 }
            session.close(reason: ByeReason(hostile))
            try await eventually("alice saw the close") { alice.delegate.closed.count == 1 }
            let record = try #require(alice.logs.all.first { $0.message == "peer said bye" })
            let reason = try #require(record.metadata["reason"])
            #expect(!reason.unicodeScalars.contains { $0.properties.generalCategory == .control })
            #expect(!reason.unicodeScalars.contains { $0.properties.generalCategory == .format })
            #expect(reason.contains("notice: session refused"))
            try await alice.shutdown()
            try await bob.shutdown()
        }
    }
}
