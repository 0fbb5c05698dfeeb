import ConfabCrypto
import ConfabModel
import Foundation
import GRDB
import Testing

@testable import ConfabStore
@testable import ConfabWire

/// The device lists a store holds (Protocol.md §20): a list offered is checked whole before
/// the first write, taken only when it extends the held one, and a fork is kept out and
/// recorded; the node's own list is written by its key alone.
@Suite struct DeviceListStoreTests {
    let alice = Keys.alice.id

    /// Alice's list: adds Bob's and Carol's keys as her devices, then removes Bob's.
    static func alicesEntries() throws -> [DeviceEntry] {
        var list = DeviceList(person: Keys.alice.id)
        let first = try DeviceListWriter.add(Keys.bob.id, name: "laptop", to: list, person: Keys.alice, timestamp: 1)
        try list.append(first)
        let second = try DeviceListWriter.add(Keys.carol.id, name: "phone", to: list, person: Keys.alice, timestamp: 2)
        try list.append(second)
        let third = try DeviceListWriter.remove(Keys.bob.id, cuts: [], from: list, person: Keys.alice, timestamp: 3)
        return [first, second, third]
    }

    func rule(_ body: () throws -> Void) -> DeviceListError.Rule? {
        do {
            try body()
            return nil
        } catch let error as DeviceListError {
            return error.rule
        } catch {
            Issue.record("not a device list error: \(error)")
            return nil
        }
    }

    func storedRows(_ store: ConfabStore) throws -> Int {
        try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM device_entry") ?? 0 }
    }

    @Test func aListIsTakenWhenItExtendsTheHeldOne() throws {
        let store = try makeStore(Keys.relay)
        let encoded = try Self.alicesEntries().map(DeviceEntryCodec.encode)
        #expect(try store.deviceList(of: alice) == DeviceList(person: alice))
        guard case .taken(let taken) = try store.offerDeviceList(Array(encoded.prefix(2)), of: alice) else {
            Issue.record("a new list was not taken")
            return
        }
        #expect(taken.count == 2)
        #expect(try store.deviceList(of: alice) == taken)
        #expect(try store.offerDeviceList(Array(encoded.prefix(2)), of: alice) == .same)
        #expect(try store.offerDeviceList(Array(encoded.prefix(1)), of: alice) == .kept)
        #expect(try store.offerDeviceList([], of: alice) == .kept)
        guard case .taken(let longer) = try store.offerDeviceList(encoded, of: alice) else {
            Issue.record("a longer list was not taken")
            return
        }
        #expect(try store.deviceList(of: alice) == longer)
        #expect(try storedRows(store) == 3)
        #expect(longer.devices.map(\.key) == [alice, Keys.carol.id])
        #expect(longer.removal(of: Keys.bob.id)?.removedAt == 3)
        #expect(try store.deviceList(of: Keys.bob.id).isEmpty)
    }

    @Test func aForkIsKeptOutAndRecordedOnce() throws {
        let store = try makeStore(Keys.relay)
        let entries = try Self.alicesEntries()
        _ = try store.offerDeviceList(entries.prefix(2).map(DeviceEntryCodec.encode), of: alice)
        let other = try DeviceListWriter.add(
            Keys.mallory.id, name: "tablet", to: DeviceList(person: alice, entries: [entries[0]]), person: Keys.alice,
            timestamp: 2)
        let forked = [entries[0], other].map(DeviceEntryCodec.encode)
        for _ in 0..<2 {
            guard case .fork(let fork) = try store.offerDeviceList(forked, of: alice) else {
                Issue.record("the fork was not reported")
                return
            }
            #expect(fork.seq == 2 && fork.held == entries[1] && fork.received == other)
        }
        #expect(try store.deviceList(of: alice).entries == Array(entries.prefix(2)))
        #expect(try store.deviceListForks(of: alice).count == 1)
        let recorded = try #require(try store.deviceListForks().first)
        #expect(recorded.person == alice && recorded.seq == 2)
        #expect(recorded.held == entries[1] && recorded.received == other)
        #expect(try store.deviceListForks(of: Keys.bob.id).isEmpty)
        // A fork longer than the held list is no better: nothing of it is taken.
        let longerFork = try DeviceListWriter.add(
            Keys.relay.id, name: "desktop", to: DeviceList(person: alice, entries: [entries[0], other]),
            person: Keys.alice, timestamp: 3)
        guard case .fork = try store.offerDeviceList(forked + [DeviceEntryCodec.encode(longerFork)], of: alice) else {
            Issue.record("a longer fork was taken")
            return
        }
        #expect(try storedRows(store) == 2)
    }

    /// A list with one bad entry anywhere is refused whole: the valid entries before it are
    /// not written either.
    @Test func anInvalidListWritesNothing() throws {
        let store = try makeStore(Keys.relay)
        let entries = try Self.alicesEntries()
        var encoded = entries.map(DeviceEntryCodec.encode)
        encoded[2][encoded[2].count - 1] ^= 1
        #expect(rule { _ = try store.offerDeviceList(encoded, of: alice) } == .badSignature)
        #expect(
            rule { _ = try store.offerDeviceList(entries.map(DeviceEntryCodec.encode), of: Keys.bob.id) }
                == .wrongPerson)
        #expect(try storedRows(store) == 0)
        #expect(try store.deviceList(of: alice).isEmpty)
    }

    @Test func oversizeInputsWriteNothing() throws {
        let store = try makeStore(Keys.relay)
        let encoded = try Self.alicesEntries().map(DeviceEntryCodec.encode)
        _ = try store.offerDeviceList([encoded[0]], of: alice)
        let huge = [UInt8](repeating: 0x0a, count: DeviceList.maxEntryBytes + 1)
        #expect(rule { _ = try store.offerDeviceList([encoded[0], encoded[1], huge], of: alice) } == .tooLarge)
        let tooMany = Array(repeating: encoded[0], count: DeviceList.maxEntries + 1)
        #expect(rule { _ = try store.offerDeviceList(tooMany, of: alice) } == .tooLarge)
        #expect(try storedRows(store) == 1)
        #expect(try store.deviceList(of: alice).count == 1)
    }

    /// The node's own list: started, extended, and a device removed with the cuts of what
    /// this node holds of its logs and a new key that it does not open.
    @Test func myOwnListAddsAndRemovesDevices() throws {
        let store = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try store.createConversation(with: [Keys.bob.id], firstMessage: "hi", now: at(1))
        try sync(id, from: store, to: bob)
        _ = try bob.sendMessage("one", to: id, now: at(2))
        _ = try bob.sendMessage("two", to: id, now: at(3))
        try sync(id, from: bob, to: store)
        let bobsSeq = try store.clock(of: id)[Keys.bob.id]
        #expect(bobsSeq >= 2)

        let first = try store.addMyDevice(Keys.bob.id, name: "  laptop ", now: at(4))
        #expect(first.seq == 1 && first.change == .add(device: Keys.bob.id, name: "laptop"))
        _ = try store.addMyDevice(Keys.carol.id, name: "phone", now: at(5))
        let before = try store.deviceList(of: alice)
        let firstKey = try #require(before.encryptionKey)
        for device in [Keys.alice, Keys.bob, Keys.carol] {
            #expect(before.encryptionKeyPair(for: device)?.publicKey == firstKey)
        }

        let removal = try store.removeMyDevice(Keys.bob.id, now: at(6))
        #expect(removal.change == .remove(device: Keys.bob.id, cuts: [DeviceCut(conversation: id, lastSeq: bobsSeq)]))
        let after = try store.deviceList(of: alice)
        #expect(after.devices.map(\.key) == [alice, Keys.carol.id])
        #expect(after.removal(of: Keys.bob.id)?.lastValidSeq(in: id) == bobsSeq)
        #expect(after.encryptionKey != firstKey)
        #expect(after.encryptionKeyPair(for: Keys.bob)?.publicKey == nil)
        #expect(after.encryptionKeyPair(for: Keys.carol)?.publicKey == after.encryptionKey)
        #expect(after.encryptionKeyPair(for: Keys.alice)?.publicKey == after.encryptionKey)
        #expect(rule { _ = try store.addMyDevice(Keys.bob.id, name: "laptop again") } == .listedBefore)
        #expect(rule { _ = try store.removeMyDevice(Keys.mallory.id) } == .notListed)
        #expect(try store.deviceList(of: alice) == after)
    }

    @Test func onlyMyOwnEntriesAreAppended() throws {
        let store = try makeStore(Keys.alice)
        let entries = try Self.alicesEntries()
        #expect(try store.appendDeviceEntry(entries[0]).count == 1)
        #expect(rule { _ = try store.appendDeviceEntry(entries[0]) } == .badSeq)
        #expect(rule { _ = try store.appendDeviceEntry(entries[2]) } == .badSeq)
        #expect(try store.appendDeviceEntry(entries[1]).count == 2)
        let bobs = try DeviceListWriter.add(
            Keys.carol.id, name: "phone", to: DeviceList(person: Keys.bob.id), person: Keys.bob, timestamp: 1)
        #expect(throws: StoreError.self) { try store.appendDeviceEntry(bobs) }
        #expect(try storedRows(store) == 2)
    }

    @Test func theListSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        let entries = try Self.alicesEntries()
        do {
            let store = try ConfabStore(path: directory.databasePath, identity: Keys.relay)
            _ = try store.offerDeviceList(entries.map(DeviceEntryCodec.encode), of: alice)
        }
        let reopened = try ConfabStore(path: directory.databasePath, identity: Keys.relay)
        #expect(try reopened.deviceList(of: alice).entries == entries)
    }
}
