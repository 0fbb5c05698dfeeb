import ConfabModel
import ConfabTestSupport
import ConfabWire
import Foundation
import Testing

/// Peers of other protocol versions (Protocol.md §12.1), spoken by a peer the test drives:
/// one that no longer syncs with this version, and one of protocol 1 (Confab 0.1.0).
@Suite("Protocol versions", .serialized)
struct HostileVersionTests {
    /// A node of a future release that dropped protocol 2: the node says why in its Bye,
    /// tells its person in `peers` and `status`, logs it once, and does not dial it again.
    @Test func aPeerThatNoLongerSpeaksThisVersionIsToldOnceAndNotRedialled() async throws {
        let root = try ConfabBinary.temporaryDirectory("confab-versions")
        defer { try? FileManager.default.removeItem(at: root) }
        let future = try HostilePeer(name: "future")
        defer { Task { await future.shutdown() } }
        let port = try await future.listen(
            hello: .init(version: 3, oldestVersion: 3, displayName: "future", role: .person, listenPort: 0))
        let alice = try NodeProcess(name: "alice", root: root)
        try alice.cli(["peers", "add", future.id.hex, "--name", "future"])
        try alice.start(discovery: false, extra: ["--peer", "\(future.id.hex)@127.0.0.1:\(port)"])
        defer { try? alice.stop() }

        try await waitUntil(timeout: 30, "alice's Bye to the future node") {
            try future.received(from: alice).contains { message in
                if case .bye(let reason) = message { return reason == .incompatibleProtocol }
                return false
            }
        }
        // Nothing of the sync was sent to it: no clocks, no entries.
        #expect(try future.received(from: alice).allSatisfy { if case .clocks = $0 { false } else { true } })
        let notice = "future runs a newer Confab (protocol 3) that no longer talks to this one (protocol 2)"
        try await waitUntil(timeout: 30, "alice's peers to say why") {
            try alice.cli(["peers"]).stdout.contains(notice)
        }
        #expect(try alice.cli(["status"]).stdout.contains(notice))

        // The dial loop passes over it (twice, 1 s and 2 s apart), and dials it no more.
        try await waitUntil(timeout: 30, "alice's dial loop to pass over the future node twice") {
            alice.log.components(separatedBy: "as \(future.id.shortHex): not dialled").count > 2
        }
        #expect(future.sessionsOpened == 1)
        // It dials Alice itself, and is told again; the log says it once.
        try await future.connect(to: alice, version: 3, oldestVersion: 3)
        try await waitUntil(timeout: 30, "the second Bye") {
            try future.received(from: alice).filter { if case .bye = $0 { true } else { false } }.count == 2
        }
        #expect(alice.log.components(separatedBy: "event=protocol_incompatible").count == 2)
    }

    /// Confab 0.1.0 says protocol 1 and no oldest version: it syncs, and its person's
    /// contacts are told what it will not see and that what it starts waits.
    @Test func aProtocolOnePeerSyncsAndItsContactsAreTold() async throws {
        let root = try ConfabBinary.temporaryDirectory("confab-versions")
        defer { try? FileManager.default.removeItem(at: root) }
        let old = try HostilePeer(name: "oldbob")
        defer { Task { await old.shutdown() } }
        let alice = try NodeProcess(name: "alice", root: root)
        try alice.start(discovery: false)
        defer { try? alice.stop() }
        try await old.connect(to: alice, version: 1, oldestVersion: 0)
        // It is synced with: a made-up conversation in its Clocks is answered.
        try await old.barrier(with: alice)
        let peers = try alice.cli(["peers"]).stdout
        #expect(
            peers.contains(
                "oldbob runs an older Confab (protocol 1): conversations oldbob starts wait until oldbob upgrades"))
        #expect(try alice.cli(["peers", "--json"]).stdout.contains("\"protocolVersion\":1"))
    }
}
