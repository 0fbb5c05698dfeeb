import ConfabClient
import ConfabModel
import Foundation
import Testing

@testable import ConfabTUI

/// The device box of the full-screen chat: opened from the list (`D`) as from a chat
/// (`/devices`), it scrolls through every machine, and on the machine with the person key
/// `r` asks in the same y/N box as `/devices remove NAME` before anything is removed.
@Suite struct ChatStateDeviceListTests {
    let laptop = Fixtures.node(5)
    let phone = Fixtures.node(6)

    /// Alice's machines as the person-key machine lists them: itself first, then `others`.
    func listing(_ others: [DeviceListing.Device], canRemove: Bool = true) -> DeviceListing {
        DeviceListing(
            person: Fixtures.me, canRemove: canRemove,
            devices: [Fixtures.device(Fixtures.me, "Alice", thisDevice: true, personKey: true)] + others, removed: nil)
    }

    var two: DeviceListing {
        listing([Fixtures.device(laptop, "laptop"), Fixtures.device(phone, "phone")])
    }

    @Test func dOnTheListAsksForTheDevicesWithNoConversationOpen() {
        // A machine linked a moment ago has conversations, perhaps, but none open.
        var state = Fixtures.state(conversations: [])
        #expect(state.chat == nil)
        #expect(state.handle(.character("D")) == [.devices(.list)])
        _ = state.apply(.devices(.listing(two, online: [])))
        #expect(Fixtures.devicesPanel(state) != nil)
        let frame = Fixtures.render(state)
        #expect(frame.contains(DevicesOverlay.title))
        #expect(frame.contains("laptop") && frame.contains("phone"))
        #expect(state.handle(.escape).isEmpty)
        #expect(state.overlay == nil)
    }

    @Test func strayKeysNeitherCloseTheBoxNorRemoveAnything() {
        var state = Fixtures.state()
        _ = state.apply(.devices(.listing(two, online: [])))
        for key in [Key.character("y"), .enter, .character("x"), .tab, .character("D")] {
            #expect(state.handle(key).isEmpty, "\(key)")
            #expect(Fixtures.devicesPanel(state) != nil, "\(key)")
        }
        #expect(state.handle(.character("q")).isEmpty)
        #expect(state.overlay == nil)
    }

    @Test func rAsksAboutTheSelectedMachineAndNoGoesBackToTheList() {
        var state = Fixtures.state()
        _ = state.apply(.devices(.listing(two, online: [])))
        // The first line is this machine, which holds the person key: not removable.
        #expect(state.handle(.character("r")).isEmpty)
        #expect(state.notice == "This machine holds your person key: it cannot remove itself")
        #expect(Fixtures.devicesPanel(state) != nil)
        _ = state.handle(.down)
        #expect(Fixtures.devicesPanel(state)?.selectedDevice?.id == laptop)
        for key in [Key.character("r"), .delete, .backspace] {
            #expect(state.handle(key).isEmpty)
            guard case .confirmRemoveDevice(let asked, from: let list?) = state.overlay else {
                Issue.record("\(key) did not ask")
                return
            }
            #expect(asked.id == laptop)
            #expect(list.selected == 1)
            #expect(Fixtures.render(state).contains("Remove laptop (0505 0505)? It will read nothing written"))
            // Anything but "y" keeps the machine and goes back to the list, where it was.
            #expect(state.handle(.character("n")).isEmpty)
            #expect(state.notice == "Not removed")
            #expect(Fixtures.devicesPanel(state)?.selected == 1)
        }
    }

    @Test func yRemovesExactlyTheSelectedMachineThenTheListComesBackWithoutIt() {
        var state = Fixtures.state()
        _ = state.apply(.devices(.listing(two, online: [])))
        _ = state.handle(.end)
        _ = state.handle(.character("r"))
        #expect(state.handle(.character("y")) == [.devices(.remove(phone.hex, confirmed: true)), .devices(.list)])
        #expect(state.overlay == nil)
        #expect(state.notice == "Removing phone…")
        _ = state.apply(.devices(.removed(DeviceRemoved(id: phone, name: "phone", rekeyed: [], notRekeyed: []))))
        _ = state.apply(.devices(.listing(listing([Fixtures.device(laptop, "laptop")]), online: [])))
        let frame = Fixtures.render(state)
        #expect(frame.contains("0505 0505 0505 0505"))
        #expect(!frame.contains("0606 0606 0606 0606"))
        #expect(Fixtures.devicesPanel(state)?.listing.devices.count == 2)
    }

    @Test func aNewerListKeepsTheSelectionOnTheSameMachine() {
        var state = Fixtures.state()
        _ = state.apply(.devices(.listing(two, online: [])))
        _ = state.handle(.end)
        let newer = listing([
            Fixtures.device(laptop, "laptop"), Fixtures.device(Fixtures.dave, "tablet"),
            Fixtures.device(phone, "phone"),
        ])
        _ = state.apply(.devices(.listing(newer, online: [phone])))
        #expect(Fixtures.devicesPanel(state)?.selectedDevice?.id == phone)
        #expect(Fixtures.render(state).contains("0606 0606 0606 0606  online"))
    }

    @Test func aListLongerThanTheScreenScrollsWithTheSelection() {
        var state = Fixtures.state(width: 100, height: 12)
        let many = (10..<40).map { Fixtures.device(Fixtures.node(UInt8($0)), "machine \($0)") }
        _ = state.apply(.devices(.listing(listing(many), online: [])))
        let rows = DevicesOverlay.deviceRows(screenHeight: 12, panel: Fixtures.devicesPanel(state)!)
        // Alice's own line, by its fingerprint: her name is in the status bar too.
        let alice = "0101 0101 0101 0101"
        var frame = Fixtures.render(state)
        #expect(frame.contains(alice))
        #expect(!frame.contains("machine 39"))
        #expect(frame.contains("1–\(rows) of 31"))
        _ = state.handle(.end)
        frame = Fixtures.render(state)
        #expect(frame.contains("▸ machine 39"))
        #expect(!frame.contains(alice))
        #expect(frame.contains("\(31 - rows + 1)–31 of 31"))
        _ = state.handle(.pageUp)
        #expect(Fixtures.devicesPanel(state)?.selected == 30 - rows)
        _ = state.handle(.home)
        #expect(Fixtures.render(state).contains("▸ Alice"))
        // Every machine shows on some page.
        var seen = ""
        for _ in 0..<31 {
            seen += Fixtures.render(state).joined
            _ = state.handle(.down)
        }
        for number in 10..<40 { #expect(seen.contains("machine \(number)"), "\(number)") }
    }

    @Test func theKeysAreInTheHelp() {
        let keys = KeyBindings.sections.flatMap(\.bindings).map(\.keys)
        #expect(keys.contains("D"))
        #expect(keys.contains("r or Delete"))
    }
}

/// Ctrl+K offers people to talk to: my own other machines are listed among peers (their
/// presence shows) but are no one to start a conversation with.
@Suite struct NewConversationOwnDeviceTests {
    @Test func myOtherMachinesAreNotOffered() {
        var state = Fixtures.state()
        var laptop = Fixtures.peer(NodeID(bytes: [UInt8](repeating: 0x1A, count: 32))!, "laptop")
        laptop.ownDevice = true
        _ = state.apply(.peers([laptop, Fixtures.peer(Fixtures.bob, "Bob")], verified: []))
        #expect(state.newConversationCandidates.map(\.name) == ["Bob"])
    }
}
