import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

/// A change made on a machine whose clock is behind, after it took a change from another of
/// the person's machines, wins over that change everywhere: it is stamped after the change
/// in force (Protocol.md §20.15).
@Suite struct SlowClockSettingTests {
    @Test func aChangeMadeAfterAnotherWasSeenWinsEvenFromASlowClock() throws {
        let m = try PersonalSettingsTests().alicesTwoMachines()
        try m.desktop.setFlag(.pinned, true, on: m.id, now: at(100))
        try sync(m.personal, from: m.desktop, to: m.laptop)
        #expect(try m.laptop.conversation(m.id)?.isPinned == true)
        // The laptop's clock is far behind the desktop's.
        try m.laptop.setFlag(.pinned, false, on: m.id, now: at(50))
        #expect(try m.laptop.conversation(m.id)?.isPinned == false)
        try sync(m.personal, from: m.laptop, to: m.desktop)
        #expect(try m.desktop.conversation(m.id)?.isPinned == false)
    }
}
