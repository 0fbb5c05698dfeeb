import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// Device lists (Protocol.md §20): written, encoded, decoded and folded; each rule refused
/// with its own error; the lies a peer or a stolen device could tell.
@Suite struct DeviceListTests {
    let person = DeviceVector.personID
    let laptop = DeviceVector.laptopID
    let phone = DeviceVector.phoneID

    /// The rule a list is refused by, or nil when it is taken.
    func refusal(_ encoded: [[UInt8]], of person: NodeID = DeviceVector.personID) -> DeviceListError.Rule? {
        do {
            _ = try DeviceEntryCodec.decodeList(encoded, person: person)
            return nil
        } catch {
            return error.rule
        }
    }

    func encoded() throws -> [[UInt8]] { try DeviceVector.entries().map(DeviceEntryCodec.encode) }

    @Test func aListRoundTripsThroughItsBytes() throws {
        let entries = try DeviceVector.entries()
        let list = try DeviceEntryCodec.decodeList(entries.map(DeviceEntryCodec.encode), person: person)
        #expect(list.entries == entries)
        #expect(
            list.devices == [
                Device(key: person, name: nil, addedAt: 0), Device(key: phone, name: "phone", addedAt: 2),
            ])
        #expect(list.isDevice(person) && list.isDevice(phone) && !list.isDevice(laptop))
        #expect(
            list.removal(of: laptop)
                == DeviceRemoval(device: laptop, removedAt: 3, cuts: [DeviceVector.cut.conversation: 3]))
        #expect(list.removal(of: laptop)?.lastValidSeq(in: DeviceVector.cut.conversation) == 3)
        #expect(
            list.removal(of: laptop)?.lastValidSeq(in: ConversationID(validatedBytes: [UInt8](repeating: 9, count: 16)))
                == 0)
        #expect(list.removal(of: phone) == nil)
        #expect(list.encryptionKey == DeviceVector.secondKey.publicKey)
        for (entry, bytes) in zip(entries, entries.map(DeviceEntryCodec.encode)) {
            #expect(try DeviceEntryCodec.decode(bytes, person: person) == entry)
            #expect(entry.hash.bytes == Hash.blake2b(entry.content, length: 32))
        }
    }

    @Test func anEmptyListHasThePersonAsItsOnlyDeviceAndNoKey() throws {
        let list = try DeviceEntryCodec.decodeList([], person: person)
        #expect(list.devices == [Device(key: person, name: nil, addedAt: 0)])
        #expect(list.encryptionKey == nil)
        #expect(list.encryptionKeyPair(for: DeviceVector.person)?.publicKey == nil)
    }

    /// Every device listed after an entry opens the person's key from that entry; a device
    /// removed opens nothing, at its old place or any other.
    @Test func theEncryptionKeyOpensOnEachListedDeviceAndNotOnARemovedOne() throws {
        let entries = try DeviceVector.entries()
        let first = try DeviceList(person: person, entries: Array(entries.prefix(1)))
        let second = try DeviceList(person: person, entries: Array(entries.prefix(2)))
        let third = try DeviceList(person: person, entries: entries)
        for device in [DeviceVector.person, DeviceVector.laptop] {
            #expect(first.encryptionKeyPair(for: device)?.publicKey == DeviceVector.firstKey.publicKey)
        }
        #expect(first.encryptionKeyPair(for: DeviceVector.phone)?.publicKey == nil)
        for device in [DeviceVector.person, DeviceVector.laptop, DeviceVector.phone] {
            #expect(second.encryptionKeyPair(for: device)?.publicKey == DeviceVector.firstKey.publicKey)
        }
        for device in [DeviceVector.person, DeviceVector.phone] {
            #expect(third.encryptionKeyPair(for: device)?.publicKey == DeviceVector.secondKey.publicKey)
        }
        #expect(third.encryptionKeyPair(for: DeviceVector.laptop)?.publicKey == nil)
        let keys = entries[2].keys
        for index in 0..<keys.wrapCount {
            let opened = KeyWraps.open(
                keys.wraps, at: index, ephemeral: keys.ephemeral, with: DeviceVector.laptop,
                context: KeyWraps.deviceContext(person: DeviceVector.person.publicKey, seq: 3), purpose: .deviceKey)
            #expect(opened.map { $0.unsafeCopy } != DeviceVector.secondKey.secretKey.unsafeCopy)
        }
    }

    // MARK: Lies

    @Test func anEntrySignedByAnotherKeyIsRefused() throws {
        var encoded = try encoded()
        let mallory = try SigningKeyPair(seed: [UInt8](repeating: 0xd4, count: 32))
        encoded[1] = ForgedDevice.signed(contentBytes: try DeviceVector.entries()[1].content, by: mallory)
        #expect(refusal(encoded) == .badSignature)
        encoded[1] = ForgedDevice.envelope(try DeviceVector.entries()[1].content, signature: EntryCodec.unsigned)
        #expect(refusal(encoded) == .badSignature)
    }

    /// A list that is valid for its own person is never taken as another person's: a peer
    /// cannot claim devices for someone else.
    @Test func aListOfAnotherPersonIsRefused() throws {
        let encoded = try encoded()
        #expect(refusal(encoded, of: person) == nil)
        #expect(refusal(encoded, of: phone) == .wrongPerson)
        let list = try DeviceVector.list()
        #expect(throws: DeviceListError.self) { try DeviceList(person: phone, entries: list.entries) }
        // Nor does another key write the person's list.
        #expect(throws: DeviceListError.self) {
            try DeviceListWriter.add(
                phone, name: "phone", to: DeviceList(person: person), person: DeviceVector.laptop, timestamp: 0)
        }
    }

    @Test func aRemovedDeviceNeverComesBack() throws {
        let list = try DeviceVector.list()
        do {
            _ = try DeviceListWriter.add(
                laptop, name: "laptop", to: list, person: DeviceVector.person, timestamp: DeviceVector.timestamps[2])
            Issue.record("the writer re-added a removed device")
        } catch {
            #expect(error.rule == .listedBefore)
        }
        // Signed by the person anyway (a node that holds P and misbehaves): still refused.
        let readd = ForgedDevice.altered(list.entries[1]) { content in
            content.seq = 4
            content.previous = Data(list.entries[2].hash.bytes)
            content.add.device = Data(laptop.bytes)
        }
        #expect(refusal(try encoded() + [readd]) == .listedBefore)
    }

    /// The person's key re-signing an old seq makes a second list: whichever is held stays,
    /// and the two entries are the proof of the fork.
    @Test func aReSignedEntryAtAnOldSeqIsAFork() throws {
        let held = try DeviceVector.list()
        let other = try DeviceListWriter.add(
            DeviceNodeKeys.third, name: "tablet",
            to: DeviceList(person: person, entries: Array(held.entries.prefix(1))),
            person: DeviceVector.person, timestamp: DeviceVector.timestamps[1])
        let received = try DeviceList(person: person, entries: [held.entries[0], other])
        guard case .fork(let fork) = held.compare(with: received) else {
            Issue.record("no fork reported")
            return
        }
        #expect(fork.seq == 2 && fork.held == held.entries[1] && fork.received == other)
        #expect(fork.held.hash != fork.received.hash)
        #expect(DeviceEntryCodec.hasValidSignature(fork.held) && DeviceEntryCodec.hasValidSignature(fork.received))
    }

    /// Timestamps are shown, never compared: a removal dated before the list began removes
    /// the same device with the same cuts, and a list does not win by its dates.
    @Test func aBackdatedTimestampChangesNothing() throws {
        let entries = try DeviceVector.entries()
        let backdated = try DeviceList(
            person: person,
            entries: [entries[0], entries[1]] + [
                try DeviceEntryCodec.decode(
                    ForgedDevice.altered(entries[2]) { $0.timestampMs = 0 }, person: person)
            ])
        let honest = try DeviceVector.list()
        #expect(backdated.devices == honest.devices)
        #expect(backdated.removal(of: laptop) == honest.removal(of: laptop))
        #expect(backdated.encryptionKey == honest.encryptionKey)
        guard case .fork = honest.compare(with: backdated) else {
            Issue.record("a list with other dates was not a fork")
            return
        }
        guard case .fork = backdated.compare(with: honest) else {
            Issue.record("a list with other dates was not a fork")
            return
        }
    }

    @Test func comparingLists() throws {
        let full = try DeviceVector.list()
        let prefix = try DeviceList(person: person, entries: Array(full.entries.prefix(2)))
        #expect(full.compare(with: full) == .same)
        #expect(prefix.compare(with: full) == .receivedExtends)
        #expect(full.compare(with: prefix) == .heldExtends)
        #expect(DeviceList(person: person).compare(with: full) == .receivedExtends)
    }

    // MARK: Each rule

    @Test func undecodableAndOversizeBytesAreRefused() throws {
        #expect(refusal([[0xff, 0xff, 0xff]]) == .malformed)
        #expect(refusal([[UInt8](repeating: 0, count: DeviceList.maxEntryBytes + 1)]) == .tooLarge)
        #expect(refusal(Array(repeating: try encoded()[0], count: DeviceList.maxEntries + 1)) == .tooLarge)
        // A content that does not decode, signed.
        #expect(refusal([ForgedDevice.signed(contentBytes: [0x0a, 0x05, 0x01])]) == .malformed)
    }

    @Test func sequenceAndChain() throws {
        let entries = try DeviceVector.entries()
        let encoded = try encoded()
        #expect(refusal([encoded[1]]) == .badSeq, "seq 2 first")
        #expect(refusal([encoded[0], encoded[0]]) == .badSeq, "seq 1 twice")
        #expect(refusal([ForgedDevice.altered(entries[0]) { $0.seq = 0 }]) == .badSeq)
        #expect(refusal([ForgedDevice.altered(entries[0]) { $0.seq = 1_000 }]) == .badSeq)
        #expect(
            refusal([ForgedDevice.altered(entries[0]) { $0.previous = Data(repeating: 1, count: 32) }]) == .badPrevious)
        let wrongPrevious = ForgedDevice.altered(entries[1]) { $0.previous = Data(repeating: 1, count: 32) }
        #expect(refusal([encoded[0], wrongPrevious]) == .badPrevious)
        let shortPrevious = ForgedDevice.altered(entries[1]) { $0.previous = Data(repeating: 1, count: 31) }
        #expect(refusal([encoded[0], shortPrevious]) == .badPrevious)
        #expect(refusal([ForgedDevice.altered(entries[0]) { $0.timestampMs = -1 }]) == .badTimestamp)
        #expect(refusal([ForgedDevice.altered(entries[0]) { $0.timestampMs = 32_503_680_000_001 }]) == .badTimestamp)
    }

    @Test func exactlyOneChangeAndTheLastMemberWins() throws {
        let entries = try DeviceVector.entries()
        #expect(refusal([ForgedDevice.altered(entries[0]) { $0.change = nil }]) == .noChange)
        // An add, then a remove of the same key: read as protobuf reads a oneof, a remove of
        // a device that is not listed.
        var remove = Confab_V1_DeviceRemove()
        remove.device = Data(laptop.bytes)
        var tail = Confab_V1_DeviceEntryContent()
        tail.remove = remove
        let bytes = entries[0].content + (try tail.serializedBytes() as [UInt8])
        #expect(refusal([ForgedDevice.signed(contentBytes: bytes)]) == .notListed)
        // Fields this version does not know are skipped and stay signed: field 30, 3 bytes.
        let extended = entries[0].content + [0xf2, 0x01, 0x03, 0x01, 0x02, 0x03]
        let taken = try DeviceEntryCodec.decode(ForgedDevice.signed(contentBytes: extended), person: person)
        #expect(taken.content == extended && taken.change == entries[0].change)
    }

    @Test func addedDevices() throws {
        let entries = try DeviceVector.entries()
        let first = entries[0]
        #expect(refusal([ForgedDevice.altered(first) { $0.add.device = Data(repeating: 7, count: 31) }]) == .malformed)
        // The neutral element: a point of small order, with no X25519 form.
        let identity = Data([1] + [UInt8](repeating: 0, count: 31))
        #expect(refusal([ForgedDevice.altered(first) { $0.add.device = identity }]) == .badDevice)
        #expect(refusal([ForgedDevice.altered(first) { $0.add.device = Data(person.bytes) }]) == .deviceIsPerson)
        for name in ["", String(repeating: "x", count: 65), "lap\u{200B}top", " laptop", "lap\ntop", "deadbeef01"] {
            #expect(
                refusal([ForgedDevice.altered(first) { $0.add.name = name }]) == .badName, "\(name.debugDescription)")
        }
        #expect(refusal([ForgedDevice.altered(first) { $0.add.name = "Élodie's laptop" }]) == nil)
    }

    @Test func removedDevices() throws {
        let entries = try DeviceVector.entries()
        let encoded = try encoded()
        let removal = entries[2]
        let notListed = ForgedDevice.altered(removal) { $0.remove.device = Data(DeviceNodeKeys.third.bytes) }
        #expect(refusal(Array(encoded.prefix(2)) + [notListed]) == .notListed)
        let ofPerson = ForgedDevice.altered(removal) { $0.remove.device = Data(self.person.bytes) }
        #expect(refusal(Array(encoded.prefix(2)) + [ofPerson]) == .deviceIsPerson)
        func cuts(_ cuts: [(Data, UInt64)]) -> [UInt8] {
            ForgedDevice.altered(removal) { content in
                content.remove.cuts = cuts.map { id, seq in
                    var cut = Confab_V1_DeviceCut()
                    cut.conversationID = id
                    cut.lastSeq = seq
                    return cut
                }
            }
        }
        let id = Data(DeviceVector.cut.conversation.bytes)
        #expect(refusal(Array(encoded.prefix(2)) + [cuts([(id, 3), (Data(repeating: 2, count: 16), 1)])]) == nil)
        #expect(refusal(Array(encoded.prefix(2)) + [cuts([(id.prefix(15), 3)])]) == .badCuts)
        #expect(refusal(Array(encoded.prefix(2)) + [cuts([(id, 3), (id, 4)])]) == .badCuts)
        #expect(refusal(Array(encoded.prefix(2)) + [cuts([(id, 0)])]) == .badCuts)
        let many = (0...DeviceList.maxCuts).map { index -> (Data, UInt64) in
            var id = [UInt8](repeating: 0, count: 16)
            id[0] = UInt8(index >> 8)
            id[1] = UInt8(index & 0xff)
            return (Data(id), 1)
        }
        #expect(refusal(Array(encoded.prefix(2)) + [cuts(many)]) == .tooLarge)
        #expect(refusal(Array(encoded.prefix(2)) + [cuts(Array(many.dropLast()))]) == nil, "4,096 cuts are allowed")
    }

    @Test func encryptionKeysAndWraps() throws {
        let entries = try DeviceVector.entries()
        let encoded = try encoded()
        let first = entries[0]
        #expect(
            refusal([ForgedDevice.altered(first) { $0.keys.encryptionKey = Data(repeating: 9, count: 31) }])
                == .badEncryptionKey)
        #expect(refusal([ForgedDevice.altered(first) { $0.keys.encryptionKey = Data(count: 32) }]) == .badEncryptionKey)
        #expect(refusal([ForgedDevice.altered(first) { $0.clearKeys() }]) == .badEncryptionKey)
        #expect(
            refusal([ForgedDevice.altered(first) { $0.keys.ephemeral = Data(repeating: 9, count: 31) }]) == .badWraps)
        #expect(refusal([ForgedDevice.altered(first) { $0.keys.wraps = Data(repeating: 9, count: 33) }]) == .badWraps)
        #expect(refusal([ForgedDevice.altered(first) { $0.keys.wraps = Data(repeating: 9, count: 96) }]) == .badWraps)
        #expect(refusal([ForgedDevice.altered(first) { $0.keys.wraps = Data() }]) == .badWraps)
        // A removal that keeps the first key, or the key of any earlier entry.
        let kept = ForgedDevice.altered(entries[2]) { $0.keys.encryptionKey = Data(DeviceVector.firstKey.publicKey) }
        #expect(refusal(Array(encoded.prefix(2)) + [kept]) == .encryptionKeyNotNew)
        // An add may keep it (and does).
        #expect(entries[1].keys.encryptionKey == entries[0].keys.encryptionKey)
    }

    /// 64 devices listed at once, the person's key aside; a 65th is refused, by the writer
    /// and by a reader.
    @Test func atMost64DevicesListed() throws {
        var list = DeviceList(person: person)
        let devices = (1...65).map { index in
            NodeID(try! SigningKeyPair(seed: [UInt8](repeating: 0, count: 31) + [UInt8(index)]).publicKey)
        }
        for (index, device) in devices.prefix(64).enumerated() {
            try list.append(
                try DeviceListWriter.add(
                    device, name: "machine \(index)", to: list, person: DeviceVector.person, timestamp: 0))
        }
        #expect(list.devices.count == 65)
        do {
            _ = try DeviceListWriter.add(
                devices[64], name: "one more", to: list, person: DeviceVector.person, timestamp: 0)
            Issue.record("a 65th device was written")
        } catch {
            #expect(error.rule == .tooLarge)
        }
        let forged = ForgedDevice.altered(list.entries[63]) { content in
            content.seq = 65
            content.previous = Data(list.entries[63].hash.bytes)
            content.add.device = Data(devices[64].bytes)
        }
        #expect(refusal(list.entries.map(DeviceEntryCodec.encode) + [forged]) == .tooLarge)
    }
}

/// A key no vector uses.
enum DeviceNodeKeys {
    static let third = NodeID(try! SigningKeyPair(seed: [UInt8](repeating: 0x5a, count: 32)).publicKey)
}
