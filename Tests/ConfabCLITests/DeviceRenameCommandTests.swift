import ConfabClient
import ConfabModel
import ConfabStore
import ConfabTestSupport
import ConfabWire
import Foundation
import Testing

/// `confab devices rename` (Protocol.md §20.4): which device a word means (as `devices
/// remove` chooses), this machine included; who may rename; what `devices` shows after. Real
/// processes; lists written through the store.
@Suite(.serialized) struct DeviceRenameCommandTests {
    let root: URL
    let alice: CLIRunner
    let aliceKey: String
    let laptopKey: NodeID

    init() throws {
        let fixture = try DeviceCommandFixture()
        (root, alice, aliceKey, laptopKey) = (fixture.root, fixture.alice, fixture.aliceKey, fixture.laptopKey)
    }

    static func store(_ runner: CLIRunner) throws -> ConfabStore { try DeviceCommandFixture.store(runner) }

    @Test func itRenamesAListedDeviceAndThisMachineAndListShowsThem() throws {
        let alone = try alice.run(["devices", "rename", "alice", "desktop"])
        #expect(alone.status == 1)
        #expect(alone.stderr.contains("this machine is your only device"), "\(alone.stderr)")
        _ = try Self.store(alice).addMyDevice(laptopKey, name: "laptop")

        let renamed = try alice.run(["devices", "rename", "LAPTOP", "work laptop", "--json"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let answer = try #require(try renamed.json() as? [String: Any])
        #expect(answer["id"] as? String == laptopKey.hex)
        #expect(answer["previousName"] as? String == "laptop")
        #expect(answer["name"] as? String == "work laptop")

        // This machine, by the person's name, then by a prefix of its key.
        let named = try alice.run(["devices", "rename", "alice", "desktop"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.contains("Renamed alice (\(String(aliceKey.prefix(8)))) to desktop."), "\(named.stdout)")
        let again = try alice.run(["devices", "rename", String(aliceKey.prefix(6)), "desktop"])
        #expect(again.status == 1 && again.stderr.contains("has that name already"), "\(again.stderr)")

        let listing = try #require(try alice.run(["devices", "list", "--json"]).json() as? [String: Any])
        let listed = try #require(listing["devices"] as? [[String: Any]])
        #expect(listed.compactMap { $0["name"] as? String } == ["desktop", "work laptop"])
        let shown = try alice.run(["devices"])
        #expect(shown.stdout.contains("desktop") && shown.stdout.contains("work laptop"), "\(shown.stdout)")

        let unknown = try alice.run(["devices", "rename", "phone", "mobile"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no device phone; devices: desktop"), "\(unknown.stderr)")
        let keyLike = try alice.run(["devices", "rename", "desktop", "deadbeef01"])
        #expect(keyLike.status == 2, "\(keyLike.stderr)")
        #expect(try Self.store(alice).deviceListCount(of: try #require(NodeID(hex: aliceKey))) == 3)
    }

    @Test func aLinkedMachineIsToldWhereToRename() throws {
        let person = try #require(NodeID(hex: aliceKey))
        let aliceStore = try Self.store(alice)
        _ = try aliceStore.addMyDevice(laptopKey, name: "laptop")
        let laptop = CLIRunner(data: root.appendingPathComponent("laptop"))
        try Self.store(laptop).takeLink(
            person: person, list: aliceStore.deviceList(of: person).entries.map(DeviceEntryCodec.encode),
            displayName: "alice", keys: [])
        let refused = try laptop.run(["devices", "rename", "laptop", "mine"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("only the machine that holds alice's person key (\(person.shortHex)"),
            "\(refused.stderr)")
        #expect(try aliceStore.deviceListCount(of: person) == 1)
    }
}
