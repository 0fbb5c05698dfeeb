import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabTUI

/// Membership in the full-screen chat: `/members`, `/add`, `/remove`, `/leave` typed in the
/// input bar are commands for the open conversation, any other line a message; a change of
/// members shows in the history as a centred line of its own.
@Suite struct ChatStateMembersTests {
    let one = Fixtures.conversation(1)

    @Test func commandsInTheInputBarBecomeEffectsNotMessages() {
        var state = Fixtures.state(open: 1, history: [Fixtures.message(1, seq: 1, text: "hi", order: 10)])
        for (line, command) in [
            ("/members", MembersCommand.list), ("/add carol dave --history", .add(["carol", "dave"], history: true)),
            ("/remove bob", .remove(["bob"])), ("/leave", .leave),
        ] {
            _ = state.type(line)
            let effects = state.handle(.enter)
            // Typing the command said "typing…"; running it says that stopped.
            #expect(effects == [.typing(one, active: false), .members(one, command)], "\(line)")
            #expect(state.input.text.isEmpty)
        }
        // Not a command: sent as a message, as typed.
        for line in ["/addendum to the plan", "/add", "/leave now please", "/members of the board"] {
            _ = state.type(line)
            #expect(state.handle(.enter) == [.send(one, text: line)], "\(line)")
        }
    }

    private func line(by author: NodeID, seq: UInt64, order: UInt64) -> ChatMessage {
        var line = ChatMessage(
            conversationID: one, author: author, authorName: "Bob", seq: seq, isMine: false, text: nil,
            sentAt: Fixtures.now, orderKey: DisplayOrderKey(clockSum: order, timestamp: 0, author: author, seq: seq),
            status: nil)
        line.membership = MembershipNote(added: [.init(id: Fixtures.carol, name: "Carol")], removed: [], left: false)
        return line
    }

    @Test func aMembershipLineIsNeverNewsAndTheStoresWarningsSurviveLocalChanges() {
        var former = Fixtures.summary(1, last: "hi")
        former.isFormerMember = true
        former.keyProblem = true
        var state = Fixtures.state(
            conversations: [former], open: 1, history: [Fixtures.message(1, seq: 1, text: "hi", order: 10)])
        let effects = state.apply(.message(line(by: Fixtures.bob, seq: 2, order: 20)))
        #expect(!effects.contains { if case .notify = $0 { true } else { false } })
        let row = state.summary(one)
        #expect(row?.lastMessage?.text == "hi", "the preview stays the last message")
        #expect(row?.unreadCount == 0)
        #expect(state.chat?.messages.count == 2, "the line is in the chat")
        // A local change of the row (pinning) keeps what only the store knows.
        state.update(one) { $0.isPinned = true }
        #expect(state.summary(one)?.isFormerMember == true)
        #expect(state.summary(one)?.keyProblem == true)
    }

    @Test func aMembershipLineIsCentredAndNobodysBubble() {
        var line = ChatMessage(
            conversationID: one, author: Fixtures.bob, authorName: "Bob", seq: 4, isMine: false, text: nil,
            sentAt: Fixtures.now, orderKey: DisplayOrderKey(clockSum: 20, timestamp: 0, author: Fixtures.bob, seq: 4),
            status: nil)
        line.membership = MembershipNote(
            added: [.init(id: Fixtures.carol, name: "Carol"), .init(id: Fixtures.dave, name: "Dave")], removed: [],
            left: false)
        let state = Fixtures.state(open: 1, history: [Fixtures.message(1, seq: 1, text: "hi", order: 10), line])
        let frame = Fixtures.render(state)
        #expect(frame.contains("Bob added Carol and Dave"))
        #expect(!frame.contains("could not be decrypted"))
    }

    @Test func theMemberListIsANoticeWithMeAsYouAndTheAdminMarked() {
        var state = Fixtures.state(open: 1)
        let members: [MembershipNote.Member] = [
            .init(id: Fixtures.bob, name: "Bob"), .init(id: Fixtures.me, name: "Alice"),
        ]
        _ = state.apply(
            .memberList(
                MemberList(conversation: one, members: members, admin: Fixtures.bob, former: [], includesMe: true)))
        #expect(state.notice == "Members: Bob (admin), You")
        _ = state.apply(
            .memberList(
                MemberList(
                    conversation: one, members: [members[0]], admin: Fixtures.bob, former: [members[1]],
                    includesMe: false)))
        #expect(state.notice == "You are no longer a member. Members: Bob (admin)")
    }
}
