import ConfabClient
import ConfabModel
import ConfabStore
import ConfabTestSupport
import Foundation
import Testing

/// `confab devices` as a real process: each machine with when this one last had a session
/// with it, and `--json` as the `devices` operation answers (Protocol.md §13).
@Suite(.serialized) struct DeviceListCommandTests {
    @Test func eachMachineSaysWhenThisOneLastMetIt() throws {
        let root = try CLIRunner.temporaryDirectory()
        let alice = CLIRunner(data: root.appendingPathComponent("alice"))
        let aliceKey = try alice.initialize(name: "alice")
        let laptop = CLIRunner(data: root.appendingPathComponent("laptop"))
        let laptopKey = try #require(NodeID(hex: try laptop.initialize(name: "laptop")))
        let store = try Profile.open(DataDirectory(url: alice.data)).store
        _ = try store.addMyDevice(laptopKey, name: "<b>laptop</b>")

        let before = try alice.run(["devices"])
        #expect(before.status == 0, "\(before.stderr)")
        let lines = before.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(before.stdout)")
        #expect(lines[0].contains(aliceKey.prefix(8)) && lines[0].contains("person key  (this device)"))
        #expect(lines[1].hasPrefix("<b>laptop</b>  \(laptopKey.hex.prefix(8))  added "), "\(lines[1])")
        #expect(lines[1].hasSuffix("  not met yet"), "\(lines[1])")

        let met = Date().addingTimeInterval(-90)
        try store.notePeerSeen(laptopKey, suggestedName: "laptop", address: "127.0.0.1:9", now: met)
        let after = try alice.run(["devices"])
        #expect(
            after.stdout.split(separator: "\n").last?.contains("  last seen \(SmartTimestamp().short(met))") == true,
            "\(after.stdout)")

        let json = try #require(try alice.run(["devices", "--json"]).json() as? [String: Any])
        #expect(json["person"] as? String == aliceKey && json["canRemove"] as? Bool == true)
        let devices = try #require(json["devices"] as? [[String: Any]])
        #expect(devices.map { $0["id"] as? String } == [aliceKey, laptopKey.hex])
        #expect(devices.map { $0["thisDevice"] as? Bool } == [true, false])
        #expect(devices[0]["lastSeen"] == nil && devices[0]["addedAt"] == nil)
        let lastSeen = try #require(devices[1]["lastSeen"] as? String)
        #expect(lastSeen.hasSuffix("Z") && lastSeen.contains("T"), "\(lastSeen)")
    }
}
