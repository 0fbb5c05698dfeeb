import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// Renaming a device (Protocol.md §20.3–§20.5): the name a device has is its last rename's,
/// the person's own key can be named, the devices and the encryption key stay; and the
/// renames a list is refused for, each a lie a writer other than an honest P could tell.
@Suite struct DeviceRenameTests {
    let person = DeviceVector.personID
    let laptop = DeviceVector.laptopID
    let phone = DeviceVector.phoneID

    func refusal(_ encoded: [[UInt8]]) -> DeviceListError.Rule? {
        do {
            _ = try DeviceEntryCodec.decodeList(encoded, person: person)
            return nil
        } catch {
            return error.rule
        }
    }

    /// The three entries of §20.8 before the rename: laptop added, phone added, laptop removed.
    func before() throws -> [[UInt8]] { try DeviceVector.entries().map(DeviceEntryCodec.encode) }

    @Test func theLastRenameNamesTheDeviceAndTheDevicesAndKeyStay() throws {
        let held = try DeviceVector.list()
        let renamed = try held.appending(try DeviceVector.rename())
        #expect(renamed.devices.map(\.key) == held.devices.map(\.key))
        #expect(renamed.devices.map(\.name) == [nil, "work phone"])
        #expect(renamed.devices.map(\.addedAt) == [0, 2])
        #expect(renamed.encryptionKey == held.encryptionKey)
        // Wrapped again, under a key of its own, to the same devices: each opens E, the
        // removed laptop nothing.
        #expect(renamed.entries.last?.keys.ephemeral != held.entries.last?.keys.ephemeral)
        #expect(renamed.encryptionKeyPair(for: DeviceVector.person)?.publicKey == DeviceVector.secondKey.publicKey)
        #expect(renamed.encryptionKeyPair(for: DeviceVector.phone)?.publicKey == DeviceVector.secondKey.publicKey)
        #expect(renamed.encryptionKeyPair(for: DeviceVector.laptop) == nil)
        #expect(renamed.removal(of: laptop) == held.removal(of: laptop))

        let again = try DeviceListWriter.rename(
            phone, name: "phone", in: renamed, person: DeviceVector.person, timestamp: 1_800_000_240_000)
        #expect(try renamed.appending(again).devices.map(\.name) == [nil, "phone"])
    }

    @Test func thePersonsOwnKeyCanBeNamed() throws {
        let held = try DeviceVector.list()
        let entry = try DeviceListWriter.rename(
            person, name: "desktop", in: held, person: DeviceVector.person, timestamp: 1_800_000_180_000)
        let list = try DeviceEntryCodec.decodeList(
            held.entries.map(DeviceEntryCodec.encode) + [DeviceEntryCodec.encode(entry)], person: person)
        #expect(list.devices.map(\.name) == ["desktop", "phone"])
        #expect(list.personDeviceName == "desktop")
        #expect(list.devices.map(\.key) == [person, phone])
    }

    // MARK: Lies

    @Test func aRenameOfARemovedOrUnknownDeviceIsRefused() throws {
        let rename = try DeviceVector.rename()
        let ofRemoved = ForgedDevice.altered(rename) { $0.rename.device = Data(self.laptop.bytes) }
        #expect(refusal(try before() + [ofRemoved]) == .notListed)
        let ofStranger = ForgedDevice.altered(rename) { $0.rename.device = Data(DeviceNodeKeys.third.bytes) }
        #expect(refusal(try before() + [ofStranger]) == .notListed)
        #expect(refusal(try before() + [DeviceEntryCodec.encode(rename)]) == nil)
    }

    @Test func aListNeverStartsWithARename() throws {
        let first = try DeviceVector.entries()[0]
        let renameFirst = ForgedDevice.altered(first) { content in
            var rename = Confab_V1_DeviceRename()
            rename.device = Data(self.person.bytes)
            rename.name = "desktop"
            content.rename = rename
            // P alone after it: one wrap.
            content.keys.wraps = content.keys.wraps.prefix(32)
        }
        #expect(refusal([renameFirst]) == .renameFirst)
        #expect(throws: DeviceListError.self) {
            try DeviceListWriter.rename(
                person, name: "desktop", in: DeviceList(person: person), person: DeviceVector.person, timestamp: 1)
        }
    }

    @Test func aRenameKeepsTheEncryptionKey() throws {
        // Back to E1, which the removed laptop holds, or to a key never announced.
        for key in [DeviceVector.firstKey.publicKey, Curve25519KeyPair.generate().publicKey] {
            let moved = ForgedDevice.altered(try DeviceVector.rename()) { $0.keys.encryptionKey = Data(key) }
            #expect(refusal(try before() + [moved]) == .encryptionKeyChanged)
        }
    }

    @Test func aRenameSignedByAnotherKeyIsRefused() throws {
        let mallory = try SigningKeyPair(seed: [UInt8](repeating: 0x4D, count: 32))
        let forged = ForgedDevice.altered(try DeviceVector.rename(), by: mallory) { _ in }
        #expect(refusal(try before() + [forged]) == .badSignature)
        // Nor can another person's key write it, even as its own list's rename.
        #expect(throws: DeviceListError.self) {
            try DeviceListWriter.rename(
                self.phone, name: "mine now", in: try DeviceVector.list(), person: mallory, timestamp: 1)
        }
    }

    @Test func aRenamesFieldsAreCheckedAsAnAddsAre() throws {
        let rename = try DeviceVector.rename()
        #expect(
            refusal(try before() + [ForgedDevice.altered(rename) { $0.rename.device = Data(repeating: 7, count: 31) }])
                == .malformed)
        for name in ["", String(repeating: "x", count: 65), "work\u{200B}phone", " phone", "ph\none", "deadbeef01"] {
            let bad = ForgedDevice.altered(rename) { $0.rename.name = name }
            #expect(refusal(try before() + [bad]) == .badName, "\(name.debugDescription)")
        }
        // Wraps for the devices after it, no more, no fewer.
        let extra = ForgedDevice.altered(rename) { $0.keys.wraps += Data(repeating: 9, count: 32) }
        #expect(refusal(try before() + [extra]) == .badWraps)
        let fewer = ForgedDevice.altered(rename) { $0.keys.wraps = $0.keys.wraps.prefix(32) }
        #expect(refusal(try before() + [fewer]) == .badWraps)
    }
}
