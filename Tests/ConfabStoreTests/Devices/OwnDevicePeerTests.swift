import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// A machine of my own person meets me as a peer: it is named by my list, not by the name it
/// shares with me, and not flagged as an impostor; any other key claiming my name still is.
@Suite struct OwnDevicePeerTests {
    static let laptop = try! SigningKeyPair(seed: [UInt8](repeating: 0x1B, count: 32))

    @Test func myListedDeviceIsNamedByMyListAndNotFlagged() throws {
        let alice = try makeStore(Keys.alice)
        try alice.setDisplayName("Alice")
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(1))
        #expect(try alice.notePeerSeen(Self.laptop.id, suggestedName: "Alice", address: nil) == nil)
        let peer = try #require(try alice.peer(Self.laptop.id))
        #expect(peer.name == "laptop")
        #expect(peer.claimedName == nil)
        // A Hello of the same machine with another name changes nothing.
        #expect(try alice.notePeerSeen(Self.laptop.id, suggestedName: "Mallory", address: nil) == nil)
        #expect(try alice.peer(Self.laptop.id)?.name == "laptop")
        // A key my list does not name, claiming my name, is kept apart and flagged as before.
        #expect(try alice.notePeerSeen(Keys.mallory.id, suggestedName: "Alice", address: nil) == Keys.alice.id)
        #expect(try alice.peer(Keys.mallory.id)?.claimedName == "Alice")
    }

    @Test func aLinkedDeviceNamesItsPersonsKeyWithoutAWarning() throws {
        let alice = try makeStore(Keys.alice)
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(1))
        let list = try alice.deviceList(of: Keys.alice.id).entries.map(DeviceEntryCodec.encode)
        let laptop = try makeStore(Self.laptop)
        try laptop.takeLink(person: Keys.alice.id, list: list, displayName: "Alice", keys: [])
        #expect(laptop.myPerson == Keys.alice.id)
        #expect(try laptop.notePeerSeen(Keys.alice.id, suggestedName: "Alice", address: nil) == nil)
        let peer = try #require(try laptop.peer(Keys.alice.id))
        #expect(peer.claimedName == nil)
        #expect(peer.name.hasPrefix("Alice"))
    }
}
