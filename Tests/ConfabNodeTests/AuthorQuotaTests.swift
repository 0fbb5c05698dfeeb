import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Logging
import Testing

@testable import ConfabNode

/// A member cannot fill a person's disk: each author's stored bytes are bounded (M5, H10).
@Suite struct AuthorQuotaTests {
    @Test func anAuthorOverItsQuotaIsRefusedOthersAndIAreNot() throws {
        let me = SigningKeyPair.generate()
        let store = try ConfabStore.inMemory(identity: me)
        let quota = try AuthorQuota(limit: 1000, store: store, logger: Logger(label: "test"))
        let noisy = NodeID(SigningKeyPair.generate().publicKey)
        let other = NodeID(SigningKeyPair.generate().publicKey)
        func peek(_ author: NodeID) -> EntryPeek {
            EntryPeek(conversation: ConversationID.random(), author: author, participants: nil)
        }
        #expect(quota.refusal(of: peek(noisy), size: 900, participants: [], from: noisy) == nil)
        #expect(quota.refusal(of: peek(noisy), size: 200, participants: [], from: noisy) == .authorQuota)
        #expect(quota.refusal(of: peek(other), size: 900, participants: [], from: noisy) == nil)
        #expect(quota.refusal(of: peek(NodeID(me.publicKey)), size: 5000, participants: [], from: noisy) == nil)
        // What was admitted but not stored gives its room back.
        quota.notStored(peek(noisy), size: 900)
        #expect(quota.refusal(of: peek(noisy), size: 200, participants: [], from: noisy) == nil)
    }

    @Test func theQuotaCountsWhatIsAlreadyStored() throws {
        let alice = SigningKeyPair.generate()
        let bob = SigningKeyPair.generate()
        let aliceStore = try ConfabStore.inMemory(identity: alice)
        let bobStore = try ConfabStore.inMemory(identity: bob)
        let (id, _) = try aliceStore.createConversation(with: [NodeID(bob.publicKey)], firstMessage: "hello")
        for bytes in try aliceStore.entries(in: id, author: NodeID(alice.publicKey), after: 0) {
            try bobStore.append(bytes)
        }
        let held = try #require(try bobStore.storedEntryBytesByAuthor()[NodeID(alice.publicKey)])
        let quota = try AuthorQuota(limit: held + 10, store: bobStore, logger: Logger(label: "test"))
        let next = EntryPeek(conversation: id, author: NodeID(alice.publicKey), participants: nil)
        #expect(quota.refusal(of: next, size: 11, participants: [], from: NodeID(alice.publicKey)) == .authorQuota)
    }
}
