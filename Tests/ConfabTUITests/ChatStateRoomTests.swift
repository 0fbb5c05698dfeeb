import ConfabClient
import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabTUI

/// Rooms in the full-screen chat (Protocol.md §18): `/rooms` and `/join NAME` in the input
/// bar, and `#NAME` as the title of a new conversation with nobody chosen.
@Suite struct ChatStateRoomTests {
    let one = Fixtures.conversation(1)
    let general = RoomName(exactly: "general")!

    @Test func roomCommandsInTheInputBarBecomeEffects() {
        var state = Fixtures.state(open: 1, history: [Fixtures.message(1, seq: 1, text: "hi", order: 10)])
        for (line, effect) in [("/rooms", ChatEffect.loadRooms), ("/join #General", .joinRoom(general))] {
            _ = state.type(line)
            #expect(state.handle(.enter) == [.typing(one, active: false), effect], "\(line)")
            #expect(state.input.text.isEmpty)
        }
        _ = state.type("/join Bad!")
        #expect(state.handle(.enter) == [.typing(one, active: false)])
        #expect(state.notice == RoomName.rule)
        // Not a command: a message.
        _ = state.type("/join us for lunch")
        #expect(state.handle(.enter) == [.send(one, text: "/join us for lunch")])
        _ = state.type("/rooms are booked")
        #expect(state.handle(.enter) == [.send(one, text: "/rooms are booked")])
    }

    @Test func aRoomNameAsTheTitleWithNobodyChosenJoinsTheRoom() {
        var state = Fixtures.state()
        _ = state.handle(.control("k"))
        _ = state.handle(.tab)
        _ = state.type("#general")
        #expect(state.handle(.enter) == [.joinRoom(general)])
        #expect(state.overlay == nil)
    }

    @Test func theRoomListIsANotice() {
        var state = Fixtures.state(open: 1)
        _ = state.apply(
            .rooms([
                RoomListing(room: general, conversation: one, peers: 3),
                RoomListing(room: RoomName(exactly: "design")!, conversation: nil, peers: 2),
            ]))
        #expect(state.notice == "Rooms: #general (joined), #design (2 in session) — /join NAME")
    }
}
