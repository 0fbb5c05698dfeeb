import ConfabClient
import ConfabModel
import ConfabStore
import ConfabTestSupport
import Foundation
import Testing

/// `peers` shows a person once, with their machines under them (issue 33).
@Suite struct DevicePresenceFoldTests {
    let alice = NodeID(bytes: [UInt8](repeating: 0xA1, count: 32))!
    let laptop = NodeID(bytes: [UInt8](repeating: 0xA2, count: 32))!
    let bob = NodeID(bytes: [UInt8](repeating: 0xB0, count: 32))!

    func entry(_ id: NodeID, _ name: String, online: Bool, seen: TimeInterval?) -> PeerPresence {
        PeerPresence(
            id: id, name: name, online: online, connected: online, address: online ? "10.0.0.9:7000" : nil,
            lastSeen: seen.map { Date(timeIntervalSince1970: $0) }, role: .person)
    }

    @Test func aPersonsDeviceFoldsIntoThePersonWhoIsOnlineWhenAnyMachineIs() {
        let folded = PeerPresence.foldingDevices(
            [
                entry(alice, "Alice", online: false, seen: 100), entry(bob, "Bob", online: true, seen: 300),
                entry(laptop, "Alice", online: true, seen: 200),
            ],
            owners: [laptop: DeviceOwner(person: alice, name: "laptop")])
        #expect(folded.map(\.name) == ["Alice", "Bob"])
        let person = folded[0]
        #expect(person.online && person.connected)
        #expect(person.lastSeen == Date(timeIntervalSince1970: 200))
        #expect(person.address == "10.0.0.9:7000")
        #expect(person.devices?.map(\.id) == [alice, laptop])
        #expect(person.devices?.map(\.name) == [nil, "laptop"])
        #expect(person.devices?.map(\.online) == [false, true])
        #expect(folded[1].devices == nil)
    }

    /// A rename in Alice's list names her first machine: `peers` shows it beside the laptop.
    @Test func thePersonsOwnMachineShowsTheNameARenameGaveIt() {
        let folded = PeerPresence.foldingDevices(
            [entry(alice, "Alice", online: true, seen: 100), entry(laptop, "Alice", online: false, seen: 50)],
            owners: [laptop: DeviceOwner(person: alice, name: "work laptop")], personNames: [alice: "desktop"])
        #expect(folded.first?.devices?.map(\.name) == ["desktop", "work laptop"])
    }

    @Test func aDeviceWhosePersonIsNotAmongThePeersStaysAnEntry() {
        let folded = PeerPresence.foldingDevices(
            [entry(laptop, "Alice", online: true, seen: 1)],
            owners: [laptop: DeviceOwner(person: alice, name: "laptop")])
        #expect(folded.map(\.id) == [laptop])
    }

    @Test func anOfflineDeviceIsListedOffline() {
        let folded = PeerPresence.foldingDevices(
            [entry(alice, "Alice", online: true, seen: 1)], owners: [laptop: DeviceOwner(person: alice, name: "laptop")]
        )
        #expect(folded.count == 1)
        #expect(folded[0].devices?.map(\.online) == [true, false])
        #expect(folded[0].online)
    }
}
