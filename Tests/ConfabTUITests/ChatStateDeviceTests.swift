import ConfabClient
import ConfabModel
import Foundation
import Testing

@testable import ConfabTUI

/// My person's machines in the full-screen chat (Protocol.md §20): `/devices` in the input
/// bar lists them in a box, one a line, `/devices remove NAME` asks in a box (even with
/// --yes) and only "y" removes. A device's name was chosen on another machine: it never reaches the terminal raw.
@Suite struct ChatStateDeviceTests {
    let one = Fixtures.conversation(1)
    let laptop = Fixtures.node(5)
    let phone = Fixtures.node(6)

    func device(
        _ id: NodeID, _ name: String?, lastSeen: Date? = nil, thisDevice: Bool = false, personKey: Bool = false
    ) -> DeviceListing.Device {
        Fixtures.device(id, name, lastSeen: lastSeen, thisDevice: thisDevice, personKey: personKey)
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
            // A typed --yes is for scripts and the plain chat: the full-screen chat asks anyway.
            ("/devices remove laptop --yes", .remove("laptop", confirmed: false)),
            ("/devices remove -y laptop", .remove("laptop", confirmed: false)),
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

    @Test func theListIsABoxWithEachMachineOnItsOwnLine() {
        var state = openChat()
        let met = Fixtures.date("2024-03-05T10:00:00Z")
        let listing = DeviceListing(
            person: Fixtures.me, canRemove: true,
            devices: [
                device(Fixtures.me, "Alice", thisDevice: true, personKey: true), device(laptop, "laptop"),
                device(phone, "phone", lastSeen: met), device(Fixtures.dave, nil),
            ], removed: nil)
        _ = state.apply(.devices(.listing(listing, online: [laptop])))
        #expect(Fixtures.devicesPanel(state)?.listing == listing)
        #expect(state.notice == nil)
        let frame = Fixtures.render(state)
        let name = Fixtures.dave.shortHex
        func pad(_ text: String) -> String { DisplayWidth.pad(text, to: DisplayWidth.of(name)) }
        for line in [
            "▸ \(pad("Alice"))  0101 0101 0101 0101  this device · person key",
            "  \(pad("laptop"))  0505 0505 0505 0505  online",
            "  \(pad("phone"))  0606 0606 0606 0606  last seen Mar 5, 2024",
            "  \(name)  0404 0404 0404 0404  not met yet", DevicesOverlay.footerRemoving,
        ] {
            #expect(frame.contains(line), "\(line)")
        }
    }

    @Test func aRemovedMachineIsToldFirstAndALinkedOneIsNotOfferedRemoving() {
        var state = openChat()
        let listing = DeviceListing(
            person: Fixtures.bob, canRemove: false,
            devices: [device(Fixtures.bob, "Alice", personKey: true), device(Fixtures.me, "laptop", thisDevice: true)],
            removed: DeviceListing.Removal(
                removedAt: Fixtures.now, message: "This device was removed from Alice's devices.\nSet it up again."))
        _ = state.apply(.devices(.listing(listing, online: [])))
        let frame = Fixtures.render(state)
        #expect(frame.contains("⚠ This device was removed from Alice's devices. Set it up again."))
        #expect(frame.contains(DevicesOverlay.footer))
        #expect(!frame.contains(DevicesOverlay.footerRemoving))
        for key in [Key.character("r"), .delete] {
            #expect(state.handle(key).isEmpty)
            #expect(Fixtures.devicesPanel(state) != nil)
            #expect(state.notice == "Only the machine that holds your person key (Alice) removes devices")
        }
    }

    @Test func aDevicesNameCannotDriveTheTerminal() {
        var state = openChat()
        let hostile = "lap\u{1B}[2J\u{1B}]0;pwned\u{07}top\nrm"
        let listing = DeviceListing(
            person: Fixtures.me, canRemove: true,
            devices: [device(Fixtures.me, "Alice", thisDevice: true, personKey: true), device(laptop, hostile)],
            removed: nil)
        _ = state.apply(.devices(.listing(listing, online: [])))
        var frame = Fixtures.render(state)
        #expect(frame.contains(TextSanitizer.line(hostile)))
        #expect(!frame.joined.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        _ = state.apply(.devices(.toRemove(device(laptop, hostile))))
        frame = Fixtures.render(state)
        #expect(frame.contains("Remove \(TextSanitizer.line(hostile)) (0505 0505)?"))
        #expect(!frame.joined.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        _ = state.apply(.devices(.removed(DeviceRemoved(id: laptop, name: hostile, rekeyed: [], notRekeyed: []))))
        #expect(state.notice == "Removed \(TextSanitizer.line(hostile)); 0 conversations rekeyed")
    }

    @Test func removingAsksFirstAndOnlyYRemovesTheDeviceAskedAbout() {
        var state = openChat()
        let chosen = device(laptop, "laptop")
        _ = state.apply(.devices(.toRemove(chosen)))
        guard case .confirmRemoveDevice(let asked, from: nil) = state.overlay else {
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
