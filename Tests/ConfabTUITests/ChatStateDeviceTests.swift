import ConfabClient
import ConfabModel
import Foundation
import Testing

@testable import ConfabTUI

/// My person's machines in the full-screen chat (Protocol.md §20): `/devices` in the input
/// bar lists them in the status bar, `/devices remove NAME` asks in a box and only "y"
/// removes. A device's name was chosen on another machine: it never reaches the terminal raw.
@Suite struct ChatStateDeviceTests {
    let one = Fixtures.conversation(1)
    let laptop = Fixtures.node(5)
    let phone = Fixtures.node(6)

    func device(
        _ id: NodeID, _ name: String?, lastSeen: Date? = nil, thisDevice: Bool = false, personKey: Bool = false
    ) -> DeviceListing.Device {
        DeviceListing.Device(
            id: id, name: name, fingerprint: id.fingerprint, addedAt: personKey ? nil : Fixtures.now,
            lastSeen: lastSeen, thisDevice: thisDevice, personKey: personKey)
    }

    func openChat() -> ChatState {
        Fixtures.state(open: 1, history: [Fixtures.message(1, seq: 1, text: "hi", order: 10)])
    }

    @Test func aLineIsADeviceCommandOnlyWhenItSaysOne() {
        #expect(DeviceCommand(line: "/devices") == .list)
        #expect(DeviceCommand(line: "  /devices  ") == .list)
        #expect(DeviceCommand(line: "/devices remove laptop") == .remove("laptop", confirmed: false))
        #expect(DeviceCommand(line: "/devices remove 0505 0505 --yes") == .remove("0505 0505", confirmed: true))
        #expect(DeviceCommand(line: "/devices remove -y Old Laptop") == .remove("Old Laptop", confirmed: true))
        #expect(DeviceCommand(line: "/devices remove") == .invalid(DeviceCommand.usage))
        #expect(DeviceCommand(line: "/devices remove --yes") == .invalid(DeviceCommand.usage))
        for line in ["/devices are great", "/devicesremove laptop", "devices", "/device"] {
            #expect(DeviceCommand(line: line) == nil, "\(line)")
        }
    }

    @Test func deviceCommandsInTheInputBarBecomeEffectsNotMessages() {
        var state = openChat()
        for (line, command) in [
            ("/devices", DeviceCommand.list), ("/devices remove laptop", .remove("laptop", confirmed: false)),
        ] {
            _ = state.type(line)
            #expect(state.handle(.enter) == [.typing(one, active: false), .devices(command)], "\(line)")
            #expect(state.input.text.isEmpty)
        }
        _ = state.type("/devices remove")
        #expect(state.handle(.enter) == [.typing(one, active: false)])
        #expect(state.notice == DeviceCommand.usage)
        _ = state.type("/devices are great")
        #expect(state.handle(.enter) == [.send(one, text: "/devices are great")])
    }

    @Test func theListIsANoticeWithEachMachinesShortFingerprintAndWhereItIs() {
        var state = openChat()
        let met = Fixtures.date("2024-03-05T10:00:00Z")
        let listing = DeviceListing(
            person: Fixtures.me, canRemove: true,
            devices: [
                device(Fixtures.me, "Alice", thisDevice: true, personKey: true), device(laptop, "laptop"),
                device(phone, "phone", lastSeen: met), device(Fixtures.dave, nil),
            ], removed: nil)
        _ = state.apply(.devices(.listing(listing, online: [laptop])))
        #expect(
            state.notice
                == "Devices: Alice (0101 0101, this device), laptop (0505 0505, online), "
                + "phone (0606 0606, last seen Mar 5, 2024), \(Fixtures.dave.shortHex) (0404 0404, not met yet) "
                + "— /devices remove NAME")
    }

    @Test func aRemovedMachineIsToldFirstAndALinkedOneIsNotOfferedRemoving() {
        var state = openChat()
        let listing = DeviceListing(
            person: Fixtures.bob, canRemove: false,
            devices: [device(Fixtures.bob, "Alice", personKey: true), device(Fixtures.me, "laptop", thisDevice: true)],
            removed: DeviceListing.Removal(
                removedAt: Fixtures.now, message: "This device was removed from Alice's devices.\nSet it up again."))
        _ = state.apply(.devices(.listing(listing, online: [])))
        #expect(
            state.notice
                == "⚠ This device was removed from Alice's devices. Set it up again. Devices: Alice (0202 0202, "
                + "not met yet), laptop (0101 0101, this device)")
    }

    @Test func aDevicesNameCannotDriveTheTerminal() {
        var state = openChat()
        let hostile = "lap\u{1B}[2J\u{1B}]0;pwned\u{07}top\nrm"
        let listing = DeviceListing(
            person: Fixtures.me, canRemove: true,
            devices: [device(Fixtures.me, "Alice", thisDevice: true, personKey: true), device(laptop, hostile)],
            removed: nil)
        _ = state.apply(.devices(.listing(listing, online: [])))
        let notice = state.notice ?? ""
        #expect(notice.contains(TextSanitizer.line(hostile)))
        #expect(!notice.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        _ = state.apply(.devices(.toRemove(device(laptop, hostile))))
        let frame = Fixtures.render(state)
        #expect(frame.contains("Remove \(TextSanitizer.line(hostile)) (0505 0505)?"))
        #expect(!frame.joined.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        _ = state.apply(.devices(.removed(DeviceRemoved(id: laptop, name: hostile, rekeyed: [], notRekeyed: []))))
        #expect(state.notice == "Removed \(TextSanitizer.line(hostile)); 0 conversations rekeyed")
    }

    @Test func removingAsksFirstAndOnlyYRemovesTheDeviceAskedAbout() {
        var state = openChat()
        let chosen = device(laptop, "laptop")
        _ = state.apply(.devices(.toRemove(chosen)))
        guard case .confirmRemoveDevice(let asked) = state.overlay else {
            Issue.record("no confirmation")
            return
        }
        #expect(asked == chosen)
        #expect(Fixtures.render(state).contains("Remove laptop (0505 0505)? It will read nothing written"))
        for key in [Key.character("n"), .enter, .escape] {
            #expect(state.handle(key).isEmpty, "\(key)")
            #expect(state.overlay == nil)
            #expect(state.notice == "Not removed")
            _ = state.apply(.devices(.toRemove(chosen)))
        }
        // The full key: exactly the device asked about, whatever its name matches by then.
        #expect(state.handle(.character("y")) == [.devices(.remove(laptop.hex, confirmed: true))])
        #expect(state.overlay == nil)
        #expect(state.notice == "Removing laptop…")
    }

    @Test func theOutcomeSaysWhatWasRekeyedAndWhatOnlyAnAdminCan() {
        var state = openChat()
        let three = [Fixtures.conversation(1), Fixtures.conversation(2), Fixtures.conversation(3)]
        _ = state.apply(.devices(.removed(DeviceRemoved(id: laptop, name: "laptop", rekeyed: three, notRekeyed: []))))
        #expect(state.notice == "Removed laptop; 3 conversations rekeyed")
        _ = state.apply(
            .devices(
                .removed(
                    DeviceRemoved(
                        id: laptop, name: "laptop", rekeyed: [one], notRekeyed: [Fixtures.conversation(9)]))))
        #expect(
            state.notice
                == "Removed laptop; 1 conversation rekeyed; 1 large group can be rekeyed only by its admin, and "
                + "laptop reads what is written there until then")
    }
}
