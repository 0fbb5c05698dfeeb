import ConfabTestSupport
import Foundation
import Testing

/// `send --lines` through a running node: the lines go in `send_lines` requests of about
/// 32 KiB each (Protocol.md §13), and every line still gets its own acknowledgement.
@Suite(.serialized) struct PipeThroughNodeTests {
    @Test func everyLineOfALongPipeIsAcknowledgedInOrderWithItsOwnSeq() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discovery: discovery)
        let bob = try NodeProcess(name: "bob", root: root, discovery: discovery)
        defer { try? alice.stop() }
        #expect(try alice.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        try alice.start()

        // About 120 KiB: the first line starts the thread, the rest take several requests.
        let lines = (1...3_000).map { "line \($0) of a script's output, long enough to fill requests" }
        let result = try alice.cli(["send", "bob", "--lines", "--json"], stdin: lines.joined(separator: "\n\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let acks = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(acks.count == lines.count)
        #expect(acks.compactMap { $0["seq"] as? Int } == Array(2...lines.count + 1))
        #expect(Set(acks.compactMap { $0["conversation"] as? String }).count == 1)
        #expect(acks.first?["created"] as? Bool == true)
        #expect(acks.dropFirst().allSatisfy { $0["created"] as? Bool == false && $0["status"] as? String == "sending" })
        let history = try alice.cli(["history", "bob", "--json", "--no-mark-read", "--limit", "5000"])
        let texts = (try history.json() as? [[String: Any]])?.compactMap { $0["text"] as? String }
        #expect(texts == lines)
    }
}
