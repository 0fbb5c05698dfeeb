import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

/// Keys seen only in a Hello are neither kept for ever nor dialled after a restart (H9).
@Suite struct StrangerTests {
    @Test func strangersAreCappedAndExpireWhileChosenPeersStay() throws {
        let alice = try makeStore(Keys.alice)
        try alice.savePeer(Keys.bob.id, name: "Bob")
        let (id, _) = try alice.createConversation(with: [Keys.carol.id], now: at(0))
        _ = id
        try alice.notePeerSeen(Keys.carol.id, suggestedName: "Carol", address: "127.0.0.1:7000", now: at(0))
        let count = ConfabStore.maxStrangers + 20
        for i in 0..<count {
            let stranger = NodeID(SigningKeyPair.generate().publicKey)
            try alice.notePeerSeen(stranger, suggestedName: "s\(i)", address: "127.0.0.1:\(9000 + i)", now: at(i))
        }
        #expect(try alice.pruneStrangers(now: at(count)) == 20)
        #expect(try alice.peers().count == ConfabStore.maxStrangers + 2)
        // A week later every stranger is gone; Bob (added by hand) and Carol (a member) stay.
        try alice.pruneStrangers(now: at(count).addingTimeInterval(ConfabStore.strangerLifetime + 3600))
        #expect(Set(try alice.peers().map(\.name)) == ["Bob", "Carol"])
    }

    @Test func onlyChosenPeersAreRedialled() throws {
        let alice = try makeStore(Keys.alice)
        try alice.savePeer(Keys.bob.id, name: "Bob")
        try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: "127.0.0.1:7001")
        try alice.notePeerSeen(Keys.mallory.id, suggestedName: "Mallory", address: "127.0.0.1:7002")
        #expect(try alice.redialCandidates().map(\.id) == [Keys.bob.id])
        _ = try alice.createConversation(with: [Keys.mallory.id])
        #expect(Set(try alice.redialCandidates().map(\.id)) == [Keys.bob.id, Keys.mallory.id])
    }

    /// Anyone may create a conversation naming this node and any keys it likes: that makes
    /// none of them chosen. They stay strangers (capped, expired, never redialled) until
    /// this node writes a message there.
    @Test func keysNamedOnlyInSomeoneElsesCreateStayStrangers() throws {
        let alice = try makeStore(Keys.alice)
        let mallory = try makeStore(Keys.mallory)
        let throwaway = (0..<3).map { _ in NodeID(SigningKeyPair.generate().publicKey) }
        for (i, key) in throwaway.enumerated() {
            try alice.notePeerSeen(key, suggestedName: "t\(i)", address: "127.0.0.1:\(9100 + i)", now: at(i))
        }
        try alice.notePeerSeen(Keys.mallory.id, suggestedName: "Mallory", address: "127.0.0.1:9200", now: at(5))
        let (id, _) = try mallory.createConversation(
            with: [Keys.alice.id] + throwaway, firstMessage: "you all know me now", now: at(6))
        try sync(id, from: mallory, to: alice, ack: false)
        #expect(try alice.texts(id) == ["you all know me now"])
        #expect(try alice.redialCandidates().isEmpty)
        #expect(try alice.chosenPeers().isEmpty)
        try alice.pruneStrangers(now: at(6).addingTimeInterval(ConfabStore.strangerLifetime + 3600))
        #expect(try alice.peers().isEmpty)
        // Once Alice writes there, she chose to deal with them.
        for (i, key) in throwaway.enumerated() {
            try alice.notePeerSeen(key, suggestedName: "t\(i)", address: "127.0.0.1:\(9100 + i)", now: at(10))
        }
        _ = try alice.sendMessage("hello?", to: id, now: at(11))
        #expect(Set(try alice.redialCandidates().map(\.id)) == Set(throwaway))
    }
}

extension ConfabStore {
    fileprivate func texts(_ conversation: ConversationID) throws -> [String] {
        try history(conversation, limit: 1000).compactMap(\.text)
    }
}
