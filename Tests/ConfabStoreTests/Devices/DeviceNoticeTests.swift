import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// A member's devices changing is never silent (issue 33): each conversation with the
/// person gets a system line when a list of theirs that adds or removes a device is stored,
/// placed after what the conversation held then; none for my own person, none where the
/// person is no member.
@Suite struct DeviceNoticeTests {
    static let laptop = try! SigningKeyPair(seed: [UInt8](repeating: 0x1B, count: 32))

    func offer(_ list: DeviceList, to store: ConfabStore) throws {
        guard case .taken = try store.offerDeviceList(list.entries.map(DeviceEntryCodec.encode), of: list.person) else {
            throw StoreError.invalidInput("the list was not taken")
        }
    }

    @Test func linkingAndRemovingADeviceIsALineInEveryConversationWithThePerson() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try bob.savePeer(Keys.alice.id, name: "Alice")
        let (direct, _) = try bob.createConversation(with: [Keys.alice.id], firstMessage: "hi", now: at(1))
        let (group, _) = try bob.createConversation(
            with: [Keys.alice.id, Keys.carol.id], title: "team", firstMessage: "all", now: at(1))
        let (withCarol, _) = try bob.createConversation(with: [Keys.carol.id], firstMessage: "carol", now: at(1))

        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(2))
        try offer(try alice.deviceList(of: Keys.alice.id), to: bob)
        let fingerprint = Self.laptop.id.fingerprint.split(separator: " ").prefix(2).joined(separator: " ")
        let linked = "Alice linked a new device: laptop (\(fingerprint))"
        for id in [direct, group] {
            let history = try bob.history(id)
            #expect(history.compactMap(\.systemLine) == [linked])
            // After what the conversation held when the list came.
            #expect(history.last?.systemLine == linked)
            #expect(history.last?.isMine == false)
        }
        #expect(try bob.history(withCarol).allSatisfy { !$0.isSystemLine })

        _ = try alice.removeMyDevice(Self.laptop.id, now: at(3))
        try offer(try alice.deviceList(of: Keys.alice.id), to: bob)
        #expect(
            try bob.history(direct).compactMap(\.systemLine) == [
                linked, "Alice removed a device: laptop (\(fingerprint))",
            ])
        // The lines are the node's to tell its front ends, and distinct from any entry.
        let lines = try bob.deviceLines(of: Keys.alice.id, listSeqs: 1...2)
        #expect(lines.count == 4)
        #expect(Set(lines.map(\.id)).count == 4)
        #expect(lines.allSatisfy { $0.seq == 0 && $0.author == Self.laptop.id })
    }

    @Test func aListOfMyOwnPersonWritesNoLine() throws {
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hi", now: at(1))
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(2))
        #expect(try alice.history(id).allSatisfy { !$0.isSystemLine })
    }

    @Test func theSameListAgainOrAnOlderOneWritesNothingMore() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try bob.createConversation(with: [Keys.alice.id], firstMessage: "hi", now: at(1))
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(2))
        let list = try alice.deviceList(of: Keys.alice.id)
        try offer(list, to: bob)
        #expect(try bob.offerDeviceList(list.entries.map(DeviceEntryCodec.encode), of: Keys.alice.id) == .same)
        #expect(try bob.history(id).count(where: \.isSystemLine) == 1)
    }

    @Test func deletingTheConversationDeletesItsLines() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try bob.createConversation(with: [Keys.alice.id], firstMessage: "hi", now: at(1))
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(2))
        try offer(try alice.deviceList(of: Keys.alice.id), to: bob)
        try bob.deleteConversation(id)
        #expect(try bob.deviceLines(of: Keys.alice.id, listSeqs: 1...1).isEmpty)
    }
}
