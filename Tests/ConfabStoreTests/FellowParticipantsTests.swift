import ConfabCrypto
import ConfabModel
import Testing

@testable import ConfabStore

/// Whom a node wants sessions with beyond its chosen peers (Protocol.md §10.6): the people
/// of conversations it or a chosen peer created. The lie: a stranger creates one naming
/// this node and keys of its choosing, to make it dial them all.
@Suite struct FellowParticipantsTests {
    @Test func aStrangersConversationNamesNobodyToDial() throws {
        let alice = try makeStore(Keys.alice)
        let mallory = try makeStore(Keys.mallory)
        let (id, _) = try mallory.createConversation(with: [Keys.alice.id, Keys.bob.id, Keys.carol.id])
        let create = try mallory.entries(in: id, author: Keys.mallory.id, after: 0, limit: 1)
        _ = try alice.append(batch: create)
        #expect(try alice.participants(of: id).contains(Keys.alice.id))
        #expect(try alice.fellowParticipants(createdBy: []).isEmpty)

        // Her own conversation's people count; so do those of a peer she chose.
        _ = try alice.createConversation(with: [Keys.relay.id])
        #expect(try alice.fellowParticipants(createdBy: []) == [Keys.relay.id])
        #expect(
            try alice.fellowParticipants(createdBy: [Keys.mallory.id])
                == [Keys.relay.id, Keys.mallory.id, Keys.bob.id, Keys.carol.id])
    }
}
