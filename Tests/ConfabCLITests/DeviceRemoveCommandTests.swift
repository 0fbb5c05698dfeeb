import ConfabClient
import ConfabModel
import ConfabStore
import ConfabTestSupport
import ConfabWire
import Foundation
import Testing

/// `confab devices remove` (Protocol.md §20.13): which device a name means, the question
/// before removing, who may remove, and what a removed machine's commands say. The lists are
/// written through the store (a device is listed as linking would list it), the commands run
/// as real processes.
@Suite(.serialized) struct DeviceRemoveCommandTests {
    let root: URL
    let alice: CLIRunner
    let aliceKey: String
    let laptopKey: NodeID

    init() throws {
        let fixture = try DeviceCommandFixture()
        (root, alice, aliceKey, laptopKey) = (fixture.root, fixture.alice, fixture.aliceKey, fixture.laptopKey)
        _ = try Self.store(alice).addMyDevice(laptopKey, name: "laptop")
    }

    static func store(_ runner: CLIRunner) throws -> ConfabStore { try DeviceCommandFixture.store(runner) }

    func listed() throws -> [NodeID] {
        try Self.store(alice).deviceList(of: try #require(NodeID(hex: aliceKey))).listed.map(\.key)
    }

    @Test func anUnknownOrAmbiguousNameListsTheDevicesAndRemovesNothing() throws {
        let unknown = try alice.run(["devices", "remove", "phone", "--yes"])
        #expect(unknown.status == 1)
        #expect(
            unknown.stderr.contains("no device phone; devices: laptop (\(laptopKey.shortHex))"), "\(unknown.stderr)")
        #expect(!unknown.stderr.contains("Fatal") && !unknown.stderr.contains("StoreError"))
        #expect(try listed() == [laptopKey])
    }

    @Test func itRefusesThisMachineWhichHoldsThePersonKey() throws {
        for name in ["alice", String(aliceKey.prefix(8))] {
            let result = try alice.run(["devices", "remove", name, "--yes"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("holds the person key: it is never removed"), "\(result.stderr)")
        }
        #expect(try listed() == [laptopKey])
    }

    @Test func withoutATerminalItAsksForYes() throws {
        let result = try alice.run(["devices", "remove", "laptop"], stdin: "y\n")
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("refusing to remove laptop without confirmation; pass --yes"), "\(result.stderr)")
        #expect(try listed() == [laptopKey])
    }

    @Test func onATerminalNoKeepsItAndYesRemovesIt() async throws {
        try #require(Tmux.isAvailable, "the confirmation test needs tmux (make test-deps installs it)")
        let tmux = Tmux(directory: root)
        defer { tmux.stop() }
        let command = "\(ConfabBinary.url.path) --data \(alice.data.path) devices remove laptop"
        let environment = ["TERM": "xterm-256color", "LANG": "C.UTF-8", "NO_COLOR": "1"]
        try tmux.start(session: "no", width: 120, height: 20, command: command, environment: environment)
        _ = try await tmux.waitFor("no", text: "y/N")
        try tmux.type("n", into: "no")
        try tmux.press("Enter", in: "no")
        _ = try await tmux.waitFor("no", text: "Not removed.")
        _ = try await tmux.waitFor("no", text: "[exited 0]")
        #expect(try listed() == [laptopKey])

        try tmux.start(session: "yes", width: 120, height: 20, command: command, environment: environment)
        _ = try await tmux.waitFor("yes", text: "y/N")
        try tmux.type("y", into: "yes")
        try tmux.press("Enter", in: "yes")
        _ = try await tmux.waitFor("yes", text: "Removed laptop")
        #expect(try listed().isEmpty)
    }

    @Test func yesRemovesAndRekeysAndTheRemovedMachineSaysSo() throws {
        let bob = CLIRunner(data: root.appendingPathComponent("bob"))
        let bobKey = try bob.initialize(name: "bob")
        #expect(try alice.run(["peers", "add", bobKey, "--name", "bob"]).status == 0)
        let created = try alice.run(["new", "bob", "--message", "hi", "--json"])
        let id = try #require(
            ((try created.json() as? [String: Any])?["id"] as? String).flatMap(ConversationID.init(hex:)))
        // The laptop linked before the removal: its person's list, and the conversation keys.
        let laptop = CLIRunner(data: root.appendingPathComponent("laptop"))
        let aliceStore = try Self.store(alice)
        let person = try #require(NodeID(hex: aliceKey))
        try Self.store(laptop).takeLink(
            person: person, list: aliceStore.deviceList(of: person).entries.map(DeviceEntryCodec.encode),
            displayName: "alice", keys: try aliceStore.epochKeys())
        // ...and the conversation with Bob, as the desktop would have sent it.
        let entries = try aliceStore.entries(in: id, author: person, after: 0)
        for result in try Self.store(laptop).append(batch: entries, now: Date(), invitations: [id]) {
            if case .failure(let rejection) = result { Issue.record("the laptop refused: \(rejection)") }
        }

        let removed = try alice.run(["devices", "remove", String(laptopKey.hex.prefix(6)), "--yes"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(
            removed.stdout.contains("Removed laptop (\(laptopKey.shortHex)) from your devices. 1 conversation rekeyed"))
        #expect(try listed().isEmpty)
        let again = try alice.run(["devices", "remove", "laptop", "--yes"])
        #expect(again.status == 1 && again.stderr.contains("laptop was removed already"), "\(again.stderr)")

        // Before the laptop holds the new list it is a device like any other.
        #expect(!(try laptop.run(["whoami"])).stdout.contains("removed"))
        // It refuses to remove anything: it holds no person key, and says which machine does.
        let refused = try laptop.run(["devices", "remove", "laptop", "--yes"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("only the machine that holds alice's person key (\(person.shortHex)"))

        _ = try Self.store(laptop).offerDeviceList(
            try Self.store(alice).deviceList(of: person).entries.map(DeviceEntryCodec.encode), of: person)
        let send = try laptop.run(["send", String(id.hex.prefix(8)), "still here"])
        #expect(send.status == 1)
        #expect(send.stderr.contains("This device was removed from alice's devices (on "), "\(send.stderr)")
        #expect(send.stderr.contains("confab init --link CODE in a new directory"))
        #expect(try laptop.run(["peers", "add", bobKey, "--name", "bob"]).status == 0)
        let new = try laptop.run(["new", "bob", "--message", "a new one"])
        #expect(new.status == 1 && new.stderr.contains("This device was removed"), "\(new.stderr)")
        for command in [["whoami"], ["status"], ["devices"]] {
            let shown = try laptop.run(command)
            #expect(
                shown.stdout.contains("This device was removed from alice's devices"), "\(command): \(shown.stdout)")
        }
    }
}
