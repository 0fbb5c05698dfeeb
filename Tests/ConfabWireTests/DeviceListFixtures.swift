import ConfabCrypto
import ConfabModel
import Foundation

@testable import ConfabWire

/// The device list of Protocol.md §20.8, from fixed seeds: the person P (seed 51…), its
/// devices D1 (52…) and D2 (53…), the encryption secrets E1 (54…) and E2 (55…), and one
/// ephemeral secret per entry (61…, 62…, 63…). Entry 1 adds D1 ("laptop"), entry 2 adds D2
/// ("phone"), entry 3 removes D1 with one cut and moves the person to E2, entry 4 renames D2
/// "work phone", keeping E2.
enum DeviceVector {
    static let person = try! SigningKeyPair(seed: [UInt8](repeating: 0x51, count: 32))
    static let laptop = try! SigningKeyPair(seed: [UInt8](repeating: 0x52, count: 32))
    static let phone = try! SigningKeyPair(seed: [UInt8](repeating: 0x53, count: 32))
    static let firstKey = try! Curve25519KeyPair(secretKey: [UInt8](repeating: 0x54, count: 32))
    static let secondKey = try! Curve25519KeyPair(secretKey: [UInt8](repeating: 0x55, count: 32))
    static let ephemerals = [0x61, 0x62, 0x63, 0x64].map { byte in
        try! Curve25519KeyPair(secretKey: [UInt8](repeating: byte, count: 32))
    }
    static let timestamps: [Int64] = [1_800_000_000_000, 1_800_000_060_000, 1_800_000_120_000, 1_800_000_180_000]
    /// The conversation of §16's vectors, where the laptop had written 3 entries.
    static let cut = DeviceCut(
        conversation: ConversationID(hex: "1fdc2412de905f73dd429f8f5ca8c25f")!, lastSeq: 3)

    static var personID: NodeID { NodeID(person.publicKey) }
    static var laptopID: NodeID { NodeID(laptop.publicKey) }
    static var phoneID: NodeID { NodeID(phone.publicKey) }

    /// The three entries, written as the person's node writes them.
    static func entries() throws -> [DeviceEntry] {
        var list = DeviceList(person: personID)
        let first = try DeviceListWriter.add(
            laptopID, name: "laptop", to: list, person: person, timestamp: timestamps[0],
            startingEncryptionKey: firstKey, ephemeralKeyPair: ephemerals[0])
        try list.append(first)
        let second = try DeviceListWriter.add(
            phoneID, name: "phone", to: list, person: person, timestamp: timestamps[1],
            ephemeralKeyPair: ephemerals[1])
        try list.append(second)
        let third = try DeviceListWriter.remove(
            laptopID, cuts: [cut], from: list, person: person, timestamp: timestamps[2],
            newEncryptionKey: secondKey, ephemeralKeyPair: ephemerals[2])
        return [first, second, third]
    }

    /// Entry 4, renaming the phone after the three: `entries()` and `list()` end at the
    /// removal, as the tests of adds and removals expect.
    static func rename() throws -> DeviceEntry {
        try DeviceListWriter.rename(
            phoneID, name: "work phone", in: list(), person: person, timestamp: timestamps[3],
            ephemeralKeyPair: ephemerals[3])
    }

    /// The four entries of §20.8.
    static func documentedEntries() throws -> [DeviceEntry] { try entries() + [rename()] }

    static func list() throws -> DeviceList {
        try DeviceList(person: personID, entries: entries())
    }
}

/// Entries no honest writer makes: `content` changed as a lie needs and signed by `signer`
/// (the person unless said otherwise), for the checks a receiver makes.
enum ForgedDevice {
    static func content(of entry: DeviceEntry) -> Confab_V1_DeviceEntryContent {
        try! Confab_V1_DeviceEntryContent(serializedBytes: entry.content)
    }

    static func signed(
        _ content: Confab_V1_DeviceEntryContent, by signer: SigningKeyPair = DeviceVector.person
    ) -> [UInt8] {
        let bytes: [UInt8] = try! content.serializedBytes()
        return signed(contentBytes: bytes, by: signer)
    }

    static func signed(contentBytes: [UInt8], by signer: SigningKeyPair = DeviceVector.person) -> [UInt8] {
        envelope(contentBytes, signature: signer.sign(DeviceEntryCodec.signatureDomain + contentBytes))
    }

    static func envelope(_ content: [UInt8], signature: [UInt8]) -> [UInt8] {
        var signed = Confab_V1_SignedDeviceEntry()
        signed.content = Data(content)
        signed.signature = Data(signature)
        return try! signed.serializedBytes()
    }

    /// `entry` with its content changed by `change`, signed again (its previous and seq kept).
    static func altered(
        _ entry: DeviceEntry, by signer: SigningKeyPair = DeviceVector.person,
        _ change: (inout Confab_V1_DeviceEntryContent) -> Void
    ) -> [UInt8] {
        var content = content(of: entry)
        change(&content)
        return signed(content, by: signer)
    }
}
