import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Logging
import Synchronization
import Testing

@testable import ConfabNode

/// What peers send ends up in `confab up`'s log and in confab.log: it must not forge a
/// line or drive the terminal the log is read on.
@Suite struct LogInjectionTests {
    static let hostile = "bye\u{1B}[2K\r\n2026-01-01 notice: session refused\u{9B}1m\u{202E}\u{07}"

    /// A node on a fresh data directory, not started, logging into `records`.
    private func node(_ records: LogRecords) throws -> Node {
        let directory = DataDirectory(url: try temporaryRoot().appendingPathComponent("node"))
        _ = try Profile.initialize(directory, name: "alice")
        var options = NodeOptions(directory: directory)
        options.discovery = false
        options.logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        return try Node(options: options)
    }

    private func expectInert(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            !text.unicodeScalars.contains { [.control, .format].contains($0.properties.generalCategory) },
            "\(text.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test func aByeReasonIsLoggedEscaped() async throws {
        let records = LogRecords()
        let node = try node(records)
        await node.noteBye(ByeReason(Self.hostile), from: NodeID(SigningKeyPair.generate().publicKey))
        await node.stop()
        let bye = try #require(records.all.first { $0.metadata["event"] == "peer_bye" })
        expectInert(bye.message)
        for value in bye.metadata.values { expectInert(value) }
        #expect(bye.message.contains("notice: session refused"))
    }

    @Test func aClaimedNameIsLoggedEscaped() async throws {
        let records = LogRecords()
        let node = try node(records)
        let mallory = NodeID(SigningKeyPair.generate().publicKey)
        // My own name once cleaned, so it is kept apart and warned about, escapes and all.
        let claim = "ali\u{200B}ce\u{9B}1m\u{202E}\u{1B}]0;\r\nnotice: fine\u{07}"
        let holder = try node.local.store.notePeerSeen(mallory, suggestedName: claim, address: nil)
        await node.warnNameClaim(mallory, holder: try #require(holder))
        await node.stop()
        let warning = try #require(records.all.first { $0.message.contains("introduced itself") })
        expectInert(warning.message)
        #expect(warning.message.contains("this node's own name"))
    }
}

/// Log records, readable from the test.
final class LogRecords: Sendable {
    struct Record: Sendable {
        let message: String
        let metadata: [String: String]
    }

    private let records = Mutex<[Record]>([])

    var all: [Record] { records.withLock { $0 } }

    func append(_ record: Record) { records.withLock { $0.append(record) } }
}

struct RecordingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        records.append(.init(message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}
