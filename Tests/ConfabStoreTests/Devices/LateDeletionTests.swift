import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// A deletion made on one of Alice's machines and taken late on another deletes what the
/// deleting machine held (its `upto`, Protocol.md §20.15), never what reached the other
/// machine after it was made: a message Alice never saw is not deleted by a change made
/// before it came.
@Suite struct LateDeletionTests {
    @Test func aMessageThatCameAfterTheDeletionWasMadeStays() throws {
        let m = try PersonalSettingsTests().alicesTwoMachines()
        try m.laptop.deleteConversation(m.id, now: at(5))
        // Bob writes after the laptop deleted; the desktop gets it before the deletion.
        _ = try m.bob.sendMessage("after the deletion", to: m.id, now: at(6))
        try sync(m.id, from: m.bob, to: m.desktop)
        try sync(m.personal, from: m.laptop, to: m.desktop)

        #expect(try m.desktop.history(m.id).map(\.text) == ["after the deletion"])
        let listed = try #require(try m.desktop.conversations(.all).first { $0.id == m.id })
        #expect(listed.lastMessage?.text == "after the deletion")
    }

    @Test func whatTheDeletingMachineHeldGoesEverywhere() throws {
        let m = try PersonalSettingsTests().alicesTwoMachines()
        _ = try m.bob.sendMessage("before", to: m.id, now: at(3))
        try sync(m.id, from: m.bob, to: m.desktop)
        try sync(m.id, from: m.bob, to: m.laptop)
        try m.laptop.deleteConversation(m.id, now: at(5))
        try sync(m.personal, from: m.laptop, to: m.desktop)

        #expect(try m.desktop.conversation(m.id) == nil)
        #expect(try m.desktop.history(m.id).isEmpty)
    }
}
