import ConfabClient
import ConfabModel
import ConfabNode
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Files between real `confab up` processes on 127.0.0.1 (Protocol.md §17): sent with the
/// CLI, fetched by the nodes, written out with `confab save`, compared by SHA-256.
@Suite(.serialized) struct FileTransferNodeTests {
    /// Two acquainted nodes, Bob dialling Alice.
    func pair(_ root: URL, bobExtra: [String] = []) throws -> (NodeProcess, NodeProcess) {
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root)
        try nodes[0].start(discovery: false)
        try nodes[1].start(discovery: false, extra: ["--peer", nodes[0].peerAddress] + bobExtra)
        return (nodes[0], nodes[1])
    }

    @Test func aFileReachesAPeerWholeAndIsSavedWithoutReplacingAnything() async throws {
        let root = try temporaryRoot()
        let (alice, bob) = try pair(root)
        defer { for node in [alice, bob] { try? node.stop() } }
        let watch = try EventWatch(bob)
        defer { watch.stop() }
        try await watch.waitUntilSubscribed()
        let source = try SampleFiles.write(root.appendingPathComponent("outbox/report.pdf"), size: 3_000_000)
        let sent = try alice.cli(["send-file", "bob", source.path, "--wait", "--timeout", "60"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("report.pdf · 3.0 MB → bob"))
        #expect(sent.stdout.contains("every recipient holds it"))

        let file = try #require(try bob.files().first)
        #expect(file["name"] as? String == "report.pdf")
        #expect(file["mediaType"] as? String == "application/pdf")
        #expect(file["size"] as? Int == 3_000_000 && file["held"] as? Int == 3_000_000)
        #expect(file["state"] as? String == "complete")
        let id = try #require(file["id"] as? String)
        // The history shows it as a file message, with its name as the text.
        let history = try bob.cli(["history", "alice", "--json", "--no-mark-read"]).json() as? [[String: Any]]
        #expect((history?.last?["file"] as? [String: Any])?["id"] as? String == id)
        #expect(history?.last?["text"] as? String == "report.pdf")
        #expect(try bob.cli(["history", "alice", "--no-mark-read"]).stdout.contains("📎 report.pdf · 3.0 MB"))

        let out = root.appendingPathComponent("saved")
        let saved = try bob.cli(["save", String(id.prefix(8)), out.path + "/"])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try SampleFiles.sha256(out.appendingPathComponent("report.pdf")) == SampleFiles.sha256(source))
        // Saved again: beside it, never over it.
        #expect(try bob.cli(["save", id, out.path]).stdout.contains("report (2).pdf"))
        #expect(try SampleFiles.sha256(out.appendingPathComponent("report (2).pdf")) == SampleFiles.sha256(source))

        // The watcher saw the file arrive, and its progress end complete.
        try await watch.waitFor("a complete file event") { events in
            events.contains {
                ($0["event"] as? String) == "file" && ($0["file"] as? [String: Any])?["state"] as? String == "complete"
            }
        }
    }

    @Test func aGroupGetsOneFileAndEveryMemberSavesTheSameBytes() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob", "carol"], root: root)
        defer { for node in nodes { try? node.stop() } }
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])
        try alice.start(discovery: false)
        try bob.start(discovery: false, extra: ["--peer", alice.peerAddress])
        try carol.start(discovery: false, extra: ["--peer", alice.peerAddress, "--peer", bob.peerAddress])
        let created = try alice.cli(["new", "bob", "carol", "--title", "photos", "--json"])
        let conversation = try #require((try created.json() as? [String: Any])?["id"] as? String)
        let source = try SampleFiles.write(root.appendingPathComponent("holiday.bin"), size: 5_000_000, seed: 2)
        let sent = try alice.cli([
            "send-file", String(conversation.prefix(8)), source.path, "--wait", "--timeout", "90",
        ])
        #expect(sent.status == 0, "\(sent.stderr)")
        for member in [bob, carol] {
            let id = try #require(try member.files().first?["id"] as? String)
            let out = root.appendingPathComponent("\(member.name)-saved")
            #expect(try member.cli(["save", id, out.path + "/"]).status == 0)
            #expect(try SampleFiles.sha256(out.appendingPathComponent("holiday.bin")) == SampleFiles.sha256(source))
        }
    }

    @Test func aRelayCarriesAFileToSomeoneOfflineWhileItsSenderWasOnline() async throws {
        let root = try temporaryRoot()
        let relay = try NodeProcess(name: "relay", root: root)
        let alice = try NodeProcess(name: "alice", root: root)
        let bob = try NodeProcess(name: "bob", root: root)
        defer { for node in [relay, alice, bob] { try? node.stop() } }
        try relay.start(command: "relay", discovery: false)
        #expect(try alice.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        try alice.start(discovery: false, extra: ["--peer", relay.peerAddress])
        let source = try SampleFiles.write(root.appendingPathComponent("minutes.txt"), size: 2_500_000, seed: 3)
        let id = try #require(try alice.sendFiles(to: "bob", [source.path]).first)
        try await relay.waitForLog("file \(id.prefix(8)) complete", timeout: 60)
        try alice.stop()

        try bob.start(discovery: false, extra: ["--peer", relay.peerAddress])
        try await bob.waitForFile(id)
        let out = root.appendingPathComponent("saved")
        #expect(try bob.cli(["save", id, out.path + "/"]).status == 0)
        #expect(try SampleFiles.sha256(out.appendingPathComponent("minutes.txt")) == SampleFiles.sha256(source))
    }

    @Test(arguments: ["sender", "receiver"])
    func aTransferKilledAgainAndAgainEndsWithTheSameBytes(_ victim: String) async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root)
        defer { for node in nodes { try? node.stop() } }
        let (alice, bob) = (nodes[0], nodes[1])
        try alice.start(discovery: false)
        let alicePort = alice.port
        try bob.start(discovery: false, extra: ["--peer", alice.peerAddress])
        let source = try SampleFiles.write(root.appendingPathComponent("disk.img"), size: 80_000_000, seed: 4)
        let id = try #require(try alice.sendFiles(to: "bob", [source.path]).first)
        var lastHeld = 0
        for round in 1...3 {
            // Kill mid-transfer: once more has arrived since the last kill, before the end.
            try await waitUntil(timeout: 120, "bob to hold more of the file (round \(round))", every: 0.02) {
                try bob.heldBytes(of: id) > lastHeld
            }
            let held = try bob.heldBytes(of: id)
            guard held < 80_000_000 else { break }
            if victim == "sender" {
                alice.killHard()
                try alice.start(listenPort: alicePort, discovery: false)
            } else {
                bob.killHard()
                // What was recorded before the kill is still held: nothing verified is lost.
                #expect(try bob.heldBytes(of: id) >= held)
                try bob.start(discovery: false, extra: ["--peer", alice.peerAddress])
            }
            lastHeld = try bob.heldBytes(of: id)
        }
        try await bob.waitForFile(id, timeout: 180)
        let out = root.appendingPathComponent("saved.img")
        #expect(try bob.cli(["save", id, out.path]).status == 0)
        #expect(try SampleFiles.sha256(out) == SampleFiles.sha256(source))
    }

    @Test func aFolderArrivesAsTheSameTree() async throws {
        let root = try temporaryRoot()
        let (alice, bob) = try pair(root)
        defer { for node in [alice, bob] { try? node.stop() } }
        let tree = root.appendingPathComponent("project")
        let files = ["README.md": 1_000, "src/main.c": 20_000, "src/lib/util.c": 300_000, "docs/a b.txt": 0]
        for (path, size) in files {
            try SampleFiles.write(tree.appendingPathComponent(path), size: size, seed: UInt64(size + 1))
        }
        try FileManager.default.createSymbolicLink(
            at: tree.appendingPathComponent("escape"), withDestinationURL: URL(fileURLWithPath: "/etc"))
        let ids = try alice.sendFiles(to: "bob", [tree.path], extra: ["--wait", "--timeout", "60"])
        #expect(ids.count == 4)
        let out = root.appendingPathComponent("received")
        for id in ids { #expect(try bob.cli(["save", id, out.path + "/"]).status == 0) }
        for (path, _) in files {
            let copy = out.appendingPathComponent("project").appendingPathComponent(path)
            #expect(try SampleFiles.sha256(copy) == SampleFiles.sha256(tree.appendingPathComponent(path)), "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("project/escape").path))
    }

    @Test func namesAndFoldersFromTheNetworkNeverLeaveTheChosenFolder() async throws {
        let root = try temporaryRoot()
        let (alice, bob) = try pair(root)
        defer { for node in [alice, bob] { try? node.stop() } }
        // Names a sender can give: a device name, control characters, an escape sequence;
        // and, through the control socket, a folder climbing out and an absolute one.
        let names = ["CON.txt", "line\nbreak\u{1B}[2J.txt", "..."]
        var ids: [String] = []
        let messenger = try await AttachedMessenger(local: try Profile.open(DataDirectory(url: alice.data)))
        defer { Task { await messenger.close() } }
        let bobKey = try #require(NodeID(hex: bob.key))
        var target = MessageTarget.newConversation(with: bobKey)
        for (index, name) in names.enumerated() {
            let source = try SampleFiles.write(root.appendingPathComponent("src\(index)/\(name)"), size: 100 + index)
            let folders = ["../../../../tmp/escaped", "/etc/cron.d", ""]
            let sent = try await messenger.sendFile(at: source.path, folder: folders[index], to: target)
            target = .conversation(sent.conversation)
            ids.append(sent.file.hex)
        }
        for id in ids { try await bob.waitForFile(id) }
        let out = root.appendingPathComponent("inbox")
        var written: [String] = []
        for id in ids {
            let saved = try bob.cli(["save", id, out.path + "/", "--json"])
            #expect(saved.status == 0, "\(saved.stderr)")
            written.append(try #require((try saved.json() as? [String: Any])?["path"] as? String))
        }
        #expect(
            written == [
                out.path + "/_/_/_/_/tmp/escaped/_CON.txt", out.path + "/etc/cron.d/line_break_[2J.txt",
                // "..." is no name: "_", taken by the folder above, so beside it.
                out.path + "/_ (2)",
            ])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/escaped"))
        // Shown on one line, without the escape sequence.
        let listed = try bob.cli(["files"]).stdout
        #expect(!listed.contains("\u{1B}") && listed.contains("📎 line break.txt"))
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskStopsATransferWithAClearMessageAndLosesNothing() async throws {
        let root = try temporaryRoot()
        let small = root.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
        guard Self.mount(tmpfsOf: "12m", at: small.path) else {
            Issue.record("could not mount a tmpfs at \(small.path)")
            return
        }
        defer { _ = Self.unmount(small.path) }
        let alice = try NodeProcess(name: "alice", root: root)
        let bob = try NodeProcess(name: "bob", root: small)
        defer { for node in [alice, bob] { try? node.stop() } }
        #expect(try alice.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        try alice.start(discovery: false)
        try bob.start(discovery: false, extra: ["--peer", alice.peerAddress])
        let first = try SampleFiles.write(root.appendingPathComponent("fits.bin"), size: 1_000_000, seed: 5)
        let firstID = try #require(try alice.sendFiles(to: "bob", [first.path]).first)
        try await bob.waitForFile(firstID)
        let big = try SampleFiles.write(root.appendingPathComponent("too-big.bin"), size: 30_000_000, seed: 6)
        let bigID = try #require(try alice.sendFiles(to: "bob", [big.path]).first)
        try await bob.waitForFile(bigID, state: "failed")
        let problem = try #require(try bob.file(bigID)?["problem"] as? String)
        #expect(problem.contains("is full") && problem.contains("free some space"), "\(problem)")
        // What was there is still there; a message still gets through.
        let out = root.appendingPathComponent("out")
        #expect(try bob.cli(["save", firstID, out.path + "/"]).status == 0)
        #expect(try SampleFiles.sha256(out.appendingPathComponent("fits.bin")) == SampleFiles.sha256(first))
        #expect(try alice.cli(["send", "bob", "still here"]).status == 0)
        try await waitUntil(timeout: 30, "bob to get the message") {
            try bob.texts(with: "alice").contains("still here")
        }
        #expect(try bob.cli(["history", "alice", "--no-mark-read"]).stdout.contains("stopped: the disk holding"))
    }

    static func mount(tmpfsOf size: String, at path: String) -> Bool {
        run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]) == 0
    }

    /// Lazily if it is still busy (a process that just exited, a handle not yet closed):
    /// a mount left behind keeps its directory from being removed.
    static func unmount(_ path: String) -> Bool {
        run("/bin/umount", [path]) == 0 || run("/bin/umount", ["--lazy", path]) == 0
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
