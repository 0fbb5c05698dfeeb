import ConfabCrypto
import ConfabModel
import Testing

@testable import ConfabStore

/// Whom a node wants sessions with beyond its chosen peers (Protocol.md §10.6): the people
/// of conversations it or a chosen peer created, and a share of the others'. The lie: a
/// stranger creates one naming this node and keys of its choosing, to make it dial them all.
@Suite struct FellowParticipantsTests {
    @Test func aStrangersConversationNamesNobodyToDial() throws {
        let alice = try makeStore(Keys.alice)
        let mallory = try makeStore(Keys.mallory)
        let (id, _) = try mallory.createConversation(with: [Keys.alice.id, Keys.bob.id, Keys.carol.id])
        let create = try mallory.entries(in: id, author: Keys.mallory.id, after: 0, limit: 1)
        _ = try alice.append(batch: create)
        #expect(try alice.participants(of: id).contains(Keys.alice.id))
        #expect(try alice.fellowParticipants(createdBy: [], othersShare: 0).isEmpty)

        // Her own conversation's people count; so do those of a peer she chose.
        _ = try alice.createConversation(with: [Keys.relay.id])
        #expect(try alice.fellowParticipants(createdBy: [], othersShare: 0) == [Keys.relay.id])
        #expect(
            try alice.fellowParticipants(createdBy: [Keys.mallory.id], othersShare: 0)
                == [Keys.relay.id, Keys.mallory.id, Keys.bob.id, Keys.carol.id])
    }
}

/// The people of conversations others created count too, within a share: a group a
/// colleague made stays a dense mesh, and a stranger's list of keys takes no more.
@Suite struct OthersFellowShareTests {
    @Test func aStrangersConversationTakesAtMostTheShareClosestFirst() throws {
        let alice = try makeStore(Keys.alice)
        let mallory = try makeStore(Keys.mallory)
        let named = (0..<60).map { _ in NodeID(SigningKeyPair.generate().publicKey) }
        let (id, _) = try mallory.createConversation(with: [Keys.alice.id] + named, title: "everyone")
        _ = try alice.append(batch: try mallory.entries(in: id, author: Keys.mallory.id, after: 0, limit: 1))

        let wanted = try alice.fellowParticipants(createdBy: [])
        #expect(wanted.count == ConfabStore.othersFellowShare)
        // The closest by XOR distance to Alice's key: a stable part, different per member.
        let closest = ([Keys.mallory.id] + named).sorted {
            ConfabStore.distance($0, Keys.alice.id).lexicographicallyPrecedes(ConfabStore.distance($1, Keys.alice.id))
        }
        #expect(wanted == Set(closest.prefix(ConfabStore.othersFellowShare)))

        // Her own conversation's people come on top of the share, whatever their number.
        _ = try alice.createConversation(with: [Keys.bob.id, Keys.carol.id])
        let more = try alice.fellowParticipants(createdBy: [])
        #expect(more.count == ConfabStore.othersFellowShare + 2)
        #expect(more.isSuperset(of: [Keys.bob.id, Keys.carol.id]))
    }

    /// The people of a large group are among the share, even of one Alice created herself
    /// (Protocol.md §19.6): she seeks the closest of them, not all.
    @Test func aLargeGroupsPeopleAreInTheShareWhoeverCreatedIt() throws {
        let alice = try makeStore(Keys.alice)
        let named = (0..<40).map { _ in NodeID(SigningKeyPair.generate().publicKey) }
        _ = try alice.createConversation(with: named, title: "everyone")
        #expect(try alice.fellowParticipants(createdBy: []) == Set(named), "an ordinary group of hers: all of them")
        let largeNamed = (0..<40).map { _ in NodeID(SigningKeyPair.generate().publicKey) }
        _ = try alice.createConversation(with: largeNamed, title: "office", large: true)
        let wanted = try alice.fellowParticipants(createdBy: [])
        let closest = largeNamed.sorted {
            ConfabStore.distance($0, Keys.alice.id).lexicographicallyPrecedes(ConfabStore.distance($1, Keys.alice.id))
        }
        // Hers, but a large group: only the few closest, the tree carries the rest.
        #expect(wanted == Set(named).union(closest.prefix(ConfabStore.largeGroupFellows)))
    }
}
