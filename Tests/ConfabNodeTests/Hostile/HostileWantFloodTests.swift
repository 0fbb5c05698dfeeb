import ConfabModel
import ConfabWire
import Foundation
import Testing

/// A peer that floods a real `confab up` node on loopback with requests and never reads
/// the answers: what the node keeps for it stays bounded (Protocol.md §10.7, §12.2).
@Suite(.serialized) struct HostileWantFloodTests {
    /// The resident memory of a process, from /proc (Linux; nil elsewhere).
    func residentBytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    @Test func wantsFromAPeerThatNeverReadsCostTheNodeOneAnswer() async throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root, discoveryPort: randomDiscoveryPort())
        defer { try? alice.stop() }
        let mallory = try HostilePeer(name: "mallory", reading: false)
        defer { Task { await mallory.shutdown() } }
        try alice.cli(["peers", "add", mallory.id.hex, "--name", "mallory"])
        // About 1 MB of Alice's log in a conversation Mallory is in: what one Want gets.
        for n in 0..<34 {
            let sent = try alice.cli(["send", "mallory", String(repeating: "\(n % 10)", count: 30_000)])
            try #require(sent.status == 0, "\(sent.stderr)")
        }
        let id = try alice.newestConversation()
        try alice.start()
        let pid = try #require(alice.process?.processIdentifier)
        try await mallory.connect(to: alice)
        try await Task.sleep(for: .milliseconds(500))
        let before = try #require(residentBytes(pid))

        // 300 identical Wants in one write: 300 MB of answers if each were answered.
        let want = SessionMessage.want(.init(conversation: id, author: try alice.nodeID(), after: 0))
        try mallory.send(Array(repeating: want, count: 300), to: alice)
        var peak = before
        for _ in 0..<40 {
            try await Task.sleep(for: .milliseconds(100))
            peak = max(peak, residentBytes(pid) ?? 0)
        }
        #expect(peak - before < 48 << 20, "alice grew by \((peak - before) >> 20) MiB")
        #expect(try alice.cli(["status"]).status == 0)
    }
}
