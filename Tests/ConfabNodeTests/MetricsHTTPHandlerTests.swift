import ConfabClient
import ConfabSync
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import ConfabNode

@Suite struct MetricsHTTPHandlerTests {
    func exchange(_ method: HTTPMethod, _ uri: String) throws -> (HTTPResponseHead, String) {
        let channel = EmbeddedChannel(handler: MetricsHTTPHandler { Array("confab_up 1\n".utf8) })
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
        try channel.writeInbound(HTTPServerRequestPart.head(head))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        guard case .head(let response) = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            throw NodeProcess.Failure("no response head")
        }
        var body = ""
        while let part = try channel.readOutbound(as: HTTPServerResponsePart.self) {
            if case .body(.byteBuffer(let buffer)) = part { body += String(buffer: buffer) }
        }
        return (response, body)
    }

    @Test func metricsAreServedAsPrometheusText() throws {
        let (head, body) = try exchange(.GET, "/metrics")
        #expect(head.status == .ok)
        #expect(head.headers["Content-Type"].first?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(head.headers["Content-Length"].first == "\(body.utf8.count)")
        #expect(body == "confab_up 1\n")
    }

    @Test func otherPathsAndMethodsAreRefused() throws {
        #expect(try exchange(.GET, "/").0.status == .notFound)
        #expect(try exchange(.GET, "/metrics/../secret").0.status == .notFound)
        #expect(try exchange(.POST, "/metrics").0.status == .methodNotAllowed)
    }
}

@Suite struct NodeMetricsTests {
    @Test func outputsAreCountedByReason() {
        let metrics = NodeMetrics()
        var output = SyncOutput()
        output.replies = [.entries([[1], [2], [3]]), .clocks([])]
        output.refused = [.quota: 2]
        output.misbehavior = "sent an invalid entry"
        output.rejectedEntry = "bad_signature"
        metrics.record(output, stored: 5)
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains("confab_entries_stored_total 5"))
        #expect(text.contains("confab_entries_forwarded_total 3"))
        #expect(text.contains(#"confab_rejected_total{reason="quota"} 2"#))
        #expect(text.contains(#"confab_rejected_total{reason="bad_signature"} 1"#))
    }

    /// The store counts every check; the counter follows it, adding only what is new.
    @Test func signatureChecksFollowTheStoresCount() {
        let metrics = NodeMetrics()
        metrics.recordSignatures(total: 3)
        metrics.recordSignatures(total: 3)
        metrics.recordSignatures(total: 5)
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains("confab_entry_signatures_checked_total 5"))
    }
}
