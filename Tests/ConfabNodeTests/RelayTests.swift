import ConfabTestSupport
import Foundation
import GRDB
import Testing

/// Real `confab relay` and `confab up` processes on 127.0.0.1. Person nodes reach relays as
/// static peers with discovery off; relays find each other by beacons to 127.255.255.255.
@Suite(.serialized) struct RelayTests {
    @Test func relayCarriesMessagesBetweenNodesNeverOnlineTogetherAndCannotReadThem() async throws {
        let root = try temporaryRoot()
        let relay = try NodeProcess(name: "relay", root: root)
        let alice = try NodeProcess(name: "alice", root: root)
        let bob = try NodeProcess(name: "bob", root: root)
        defer { for node in [relay, alice, bob] { try? node.stop() } }
        try relay.start(command: "relay", discovery: false, extra: ["--metrics", "127.0.0.1:0"])
        let viaRelay = ["--peer", relay.peerAddress]

        let marker = UUID().uuidString.prefix(8)
        let secret = "meet at the old mill at nine \(marker)"
        let title = "Mill plans \(marker)"
        #expect(try alice.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        let created = try alice.cli(["new", "bob", "--title", title, "--message", secret, "--json"])
        let id = try #require((try created.json() as? [String: Any])?["id"] as? String)

        // Alice meets only the relay; once it holds the message it is "sent", not delivered.
        try alice.start(discovery: false, extra: viaRelay)
        try await waitUntil(timeout: 30, "the relay to hold alice's message") {
            try alice.statuses(with: id) == ["sent"]
        }
        try alice.stop()

        // Bob comes later and meets only the relay.
        try bob.start(discovery: false, extra: viaRelay + ["--metrics", "127.0.0.1:0"])
        try await waitUntil(timeout: 30, "bob to get alice's message from the relay") {
            try bob.texts(with: id) == [secret]
        }
        #expect(try bob.cli(["history", id]).status == 0)  // reads it: a read receipt
        try await waitUntil(timeout: 30, "the relay to hold bob's receipts") { try bob.outboxCount() == 0 }
        let bobMetrics = try bob.scrapeMetrics()
        #expect((bobMetrics["confab_entries_stored_total"] ?? 0) >= 2)
        try bob.stop()

        // Alice comes back: the relay gives her bob's receipts.
        try alice.start(discovery: false, extra: viaRelay)
        try await waitUntil(timeout: 30, "alice to see her message read") { try alice.statuses(with: id) == ["read"] }

        // Byte counters and gauges are copied into the metrics every 300 ms.
        try await waitUntil(timeout: 30, "the relay's byte counters") {
            (try relay.scrapeMetrics()["confab_bytes_sent_total"] ?? 0) > 0
        }
        let metrics = try relay.scrapeMetrics()
        for name in [
            "confab_sessions_open", "confab_peers_online", "confab_storage_bytes", "confab_rate_limit_pauses_total",
        ] {
            #expect(metrics[name] != nil, "\(name) missing")
        }
        for name in [
            "confab_entries_stored_total", "confab_entries_forwarded_total", "confab_bytes_received_total",
            "confab_bytes_sent_total", "confab_storage_bytes",
        ] {
            #expect((metrics[name] ?? 0) > 0, "\(name) is \(metrics[name] ?? -1)")
        }
        #expect((metrics["confab_sessions_opened_total"] ?? 0) >= 3)

        // The relay is no participant: it wrote nothing (no receipts of its own).
        let relayDatabase = relay.data.appendingPathComponent("confab.sqlite")
        let authored = try count(
            "SELECT count(*) FROM entry WHERE hex(author) = upper('\(relay.key)')", in: relayDatabase)
        #expect(authored == 0)
        #expect(try count("SELECT count(*) FROM entry", in: relayDatabase) >= 4)

        // Neither the message nor the title is anywhere on the relay: database, WAL, log.
        // The same search finds both on alice's machine, so it can fail.
        let relayFiles = try storeFiles(relay.data) + [relay.logFile]
        #expect(try relayFiles.contains { try contains($0, secret) } == false)
        #expect(try relayFiles.contains { try contains($0, title) } == false)
        #expect(try storeFiles(alice.data).contains { try contains($0, secret) })
        #expect(try storeFiles(alice.data).contains { try contains($0, title) })
    }

    @Test func twoRelaysConvergeAndCarryMessagesEachWay() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let north = try NodeProcess(name: "north", root: root, discovery: discovery)
        let south = try NodeProcess(name: "south", root: root, discovery: discovery)
        let alice = try NodeProcess(name: "alice", root: root)
        let bob = try NodeProcess(name: "bob", root: root)
        defer { for node in [north, south, alice, bob] { try? node.stop() } }
        // The relays find each other by beacon (their role travels in it and in Hello); on
        // the default network each trusts the other as a relay once its operator added it.
        #expect(try north.cli(["peers", "add", south.key, "--name", "south"]).status == 0)
        #expect(try south.cli(["peers", "add", north.key, "--name", "north"]).status == 0)
        try north.start(command: "relay")
        try south.start(command: "relay")
        try await waitUntil(timeout: 30, "the relays to meet") { try north.onlinePeers() == ["south"] }
        let peers = try #require(try north.cli(["peers", "--json"]).json() as? [[String: Any]])
        #expect(peers.first { $0["name"] as? String == "south" }?["role"] as? String == "relay")

        #expect(try alice.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        #expect(try bob.cli(["peers", "add", alice.key, "--name", "alice"]).status == 0)
        try alice.start(discovery: false, extra: ["--peer", north.peerAddress])
        try bob.start(discovery: false, extra: ["--peer", south.peerAddress])
        #expect(try alice.cli(["send", "bob", "north to south"]).status == 0)
        try await waitUntil(timeout: 30, "bob to get alice's message through both relays") {
            try bob.texts(with: "alice") == ["north to south"]
        }
        #expect(try bob.cli(["send", "alice", "south to north"]).status == 0)
        try await waitUntil(timeout: 30, "alice to get bob's reply through both relays") {
            try alice.texts(with: "bob") == ["north to south", "south to north"]
        }
        try await waitUntil(timeout: 30, "alice's message delivered, by receipts carried back") {
            try alice.statuses(with: "bob") == ["delivered"]
        }
        // Both relays hold the same entries.
        let northDatabase = north.data.appendingPathComponent("confab.sqlite")
        let southDatabase = south.data.appendingPathComponent("confab.sqlite")
        try await waitUntil(timeout: 30, "identical relay stores") {
            let sql = "SELECT count(*) * 1000000 + sum(seq) FROM entry"
            return try count(sql, in: northDatabase) == count(sql, in: southDatabase)
                && count("SELECT count(*) FROM entry", in: northDatabase) >= 5
        }
    }

    @Test func quotaRefusesUnknownSendersFirstThenEverythingAndDropsNothing() async throws {
        let root = try temporaryRoot()
        let relay = try NodeProcess(name: "relay", root: root)
        let alice = try NodeProcess(name: "alice", root: root)
        let bob = try NodeProcess(name: "bob", root: root)
        defer { for node in [relay, alice, bob] { try? node.stop() } }
        // Bob is known to the relay's operator; alice is not.
        #expect(try relay.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        let quota = ["--quota", "40KB", "--metrics", "127.0.0.1:0"]
        try relay.start(command: "relay", discovery: false, extra: quota)
        let viaRelay = ["--peer", relay.peerAddress]

        // About 66 kB from alice, more than the quota: some is taken, the rest refused.
        #expect(try alice.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        // Six pipes of ten lines: six runs, each signed at its top (Protocol.md §4.3), so the
        // quota cuts between runs or inside one, and the relay keeps whole runs only.
        let filler = String(repeating: "x", count: 900)
        var firstThread: String?
        for run in 0..<6 {
            let lines = (1...10).map { "alice \(run * 10 + $0) \(filler)" }.joined(separator: "\n") + "\n"
            let acks = try alice.cli(["send", "bob", "--lines", "--json"], stdin: lines)
            let firstAck = try #require(
                acks.lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) })
            firstThread = firstThread ?? (firstAck as? [String: Any])?["conversation"] as? String
        }
        let thread = try #require(firstThread)
        try alice.start(discovery: false, extra: viaRelay)
        try await waitUntil(timeout: 30, "the relay to refuse alice's surplus") {
            relay.log.contains("storage quota nearly reached")
        }
        // Alice counts as sent exactly what the relay holds of hers (its acknowledgement may
        // still be on its way when the refusal is logged).
        let database = relay.data.appendingPathComponent("confab.sqlite")
        let messagesByAlice = "SELECT count(*) FROM entry WHERE kind = 2 AND hex(author) = upper('\(alice.key)')"
        try await waitUntil(timeout: 30, "alice to have the relay's verdict") {
            let statuses = try alice.statuses(with: thread)
            let held = try count(messagesByAlice, in: database)
            return statuses.count == 60 && statuses.contains("sending")
                && statuses.filter { $0 == "sent" }.count == held
        }
        let aliceSent = try alice.statuses(with: thread).filter { $0 == "sent" }.count
        #expect(aliceSent >= 10 && aliceSent < 60)

        // Bob, known, still gets the reserve; beyond the quota everything is refused.
        #expect(try bob.cli(["peers", "add", alice.key, "--name", "alice"]).status == 0)
        #expect(try bob.cli(["send", "alice", "known sender, still taken"]).status == 0)
        try bob.start(discovery: false, extra: viaRelay)
        try await waitUntil(timeout: 30, "the relay to take bob's message") {
            try bob.statuses(with: "alice") == ["sent"]
        }
        let more = (1...8).map { "bob \($0) \(filler)" }.joined(separator: "\n") + "\n"
        #expect(try bob.cli(["send", "alice", "--lines"], stdin: more).status == 0)
        try await waitUntil(timeout: 30, "the quota to be reached") { relay.log.contains("storage quota reached") }
        try await waitUntil(timeout: 30, "bob's surplus to stay queued") {
            try bob.statuses(with: "alice").contains("sending")
        }
        let metrics = try relay.scrapeMetrics()
        #expect((metrics["confab_rejected_total{reason=\"quota\"}"] ?? 0) > 0)
        #expect((metrics["confab_storage_bytes"] ?? .infinity) <= 40_000)

        // The relay holds exactly what the senders count as sent, and a restart drops nothing.
        #expect(try count(messagesByAlice, in: database) == aliceSent)
        // Bob gets alice's messages from the relay (by the lazy path, Protocol.md §12.5) and
        // answers with a delivered receipt, which the relay takes while there is room: wait
        // for that, so the count below is of a relay with nothing still on its way to it.
        let bobsReceipt =
            "SELECT count(*) FROM entry WHERE kind = 3 AND hex(author) = upper('\(bob.key)') AND hex(conversationId) = upper('\(thread)')"
        try await waitUntil(timeout: 30, "bob to hold alice's messages the relay took") {
            let history = try bob.cli(["history", thread, "--json", "--no-mark-read", "--limit", "1000"])
            return history.status == 0 && ((try? history.json()) as? [[String: Any]])?.count == aliceSent
        }
        let received = relay.logMark()
        try await waitUntil(timeout: 30, "the relay to take or refuse bob's receipt") {
            try count(bobsReceipt, in: database) > 0
                || relay.log(after: received).contains("event=entries_refused peer=\(bob.key.prefix(8))")
        }
        let before = try count("SELECT count(*) FROM entry", in: database)
        try relay.stop()
        // Back on the port alice and bob dial (the OS picked it; another program could take it
        // while the relay is down: a small race).
        let restart = relay.logMark()
        try relay.start(command: "relay", listenPort: relay.port, discovery: false, extra: quota)
        try await waitUntil(timeout: 30, "alice and bob to reconnect") { try relay.onlinePeers().count == 2 }
        for sender in [alice, bob] {
            try await relay.waitForLog("event=entries_refused peer=\(sender.key.prefix(8))", after: restart)
        }
        #expect(try count("SELECT count(*) FROM entry", in: database) == before)
        #expect((try relay.scrapeMetrics()["confab_storage_bytes"] ?? .infinity) <= 40_000)
        // Bob may since have received some through the relay ("delivered"); none went back.
        let after = try alice.statuses(with: thread)
        #expect(after.filter { $0 != "sending" }.count == aliceSent, "\(aliceSent): \(after)")
    }

    @Test func acceptKnownClosesSessionsOfUnknownKeysWithAReason() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let relay = try NodeProcess(name: "relay", root: root, discovery: discovery)
        let alice = try NodeProcess(name: "alice", root: root)
        let mallory = try NodeProcess(name: "mallory", root: root, discovery: discovery)
        defer { for node in [relay, alice, mallory] { try? node.stop() } }
        // The test hears the relay's beacons on the discovery port, as mallory does.
        let tap = try await BeaconTap.listen(port: discovery.number)
        defer { Task { await tap.close() } }
        try relay.start(
            command: "relay", extra: ["--accept", "known", "--allow", alice.key, "--metrics", "127.0.0.1:0"])
        let viaRelay = ["--peer", relay.peerAddress]

        #expect(try mallory.cli(["peers", "add", alice.key, "--name", "alice"]).status == 0)
        #expect(try mallory.cli(["send", "alice", "let me in"]).status == 0)
        // Mallory finds the relay by its beacons.
        try mallory.start()
        try await waitUntil(timeout: 30, "mallory to be told why") {
            mallory.log.contains("refused: this relay accepts known keys only")
        }
        // Refused once, mallory does not redial on every beacon (one each 1.5 s): three more
        // of the relay's beacons reach the port, and still no more than two refusals.
        let relayID = try relay.nodeID()
        let heard = tap.beacons(from: relayID).count
        try await waitUntil(timeout: 30, "three more beacons of the relay's") {
            tap.beacons(from: relayID).count >= heard + 3
        }
        #expect(relay.log.components(separatedBy: "refusing session").count - 1 <= 2)
        #expect(relay.log.contains("refusing session: key not on the allow-list"))
        #expect((try relay.scrapeMetrics()["confab_rejected_total{reason=\"unknown_key\"}"] ?? 0) >= 1)
        #expect(try mallory.statuses(with: "alice") == ["sending"])

        #expect(try alice.cli(["peers", "add", mallory.key, "--name", "mallory"]).status == 0)
        #expect(try alice.cli(["send", "mallory", "allowed"]).status == 0)
        try alice.start(discovery: false, extra: viaRelay)
        try await waitUntil(timeout: 30, "the relay to take alice's message") {
            try alice.statuses(with: "mallory") == ["sent"]
        }
        let database = relay.data.appendingPathComponent("confab.sqlite")
        #expect(try count("SELECT count(*) FROM entry WHERE hex(author) = upper('\(mallory.key)')", in: database) == 0)
    }

    @Test func rateLimitSlowsAFastSenderWithoutLosingAnything() async throws {
        let root = try temporaryRoot()
        let relay = try NodeProcess(name: "relay", root: root)
        let alice = try NodeProcess(name: "alice", root: root)
        let bob = try NodeProcess(name: "bob", root: root)
        defer { for node in [relay, alice] { try? node.stop() } }
        try relay.start(
            command: "relay", discovery: false,
            extra: ["--rate", "100/s", "--burst", "100", "--metrics", "127.0.0.1:0"])
        #expect(try alice.cli(["peers", "add", bob.key, "--name", "bob"]).status == 0)
        let count = 600
        let lines = (1...count).map { "queued \($0)" }.joined(separator: "\n") + "\n"
        #expect(try alice.cli(["send", "bob", "--lines"], stdin: lines).status == 0)

        try alice.start(discovery: false, extra: ["--peer", relay.peerAddress])
        var firstStored: Date?
        try await waitUntil(timeout: 90, "the relay to store all \(count + 1) entries") {
            let stored = try relay.scrapeMetrics()["confab_entries_stored_total"] ?? 0
            if stored > 0, firstStored == nil { firstStored = Date() }
            return stored >= Double(count + 1)
        }
        let elapsed = Date().timeIntervalSince(try #require(firstStored))
        // 601 entries at 100/s with a burst of 100 take at least 5 s; read unthrottled, the
        // whole queue arrives within a fraction of a second.
        #expect(elapsed >= 3, "stored in \(elapsed) s")
        #expect((try relay.scrapeMetrics()["confab_rate_limit_pauses_total"] ?? 0) > 0)
        #expect(relay.log.contains("event=rate_limited"))
        // One signature per chain of Alice's entries in a message (Protocol.md §7 step 3),
        // not one per entry: her queue goes in messages of up to 256.
        let checked = try relay.scrapeMetrics()["confab_entry_signatures_checked_total"] ?? 0
        #expect(checked >= 1 && checked <= Double(count / 10), "\(checked) signatures checked")
        try await waitUntil(timeout: 30, "every entry acknowledged") { try alice.outboxCount() == 0 }
    }
}

/// One integer from a read-only look at a node's database (it may be running: WAL mode).
func count(_ sql: String, in database: URL) throws -> Int {
    var configuration = Configuration()
    configuration.readonly = true
    let queue = try DatabaseQueue(path: database.path, configuration: configuration)
    return try queue.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
}

/// The store's files: database, WAL, shared memory.
func storeFiles(_ data: URL) throws -> [URL] {
    try FileManager.default.contentsOfDirectory(at: data, includingPropertiesForKeys: nil)
        .filter { $0.lastPathComponent.hasPrefix("confab.sqlite") }
}

func contains(_ file: URL, _ text: String) throws -> Bool {
    let data = try Data(contentsOf: file)
    return data.range(of: Data(text.utf8)) != nil
}
