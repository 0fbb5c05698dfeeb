import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// The device-list vectors of Protocol.md §20.8, read out of the document and checked both
/// ways: the code writes the documented bytes from the documented seeds, and the documented
/// bytes decode and fold to the list the text describes. A stale vector fails here.
@Suite struct DocumentedDeviceVectorTests {
    static func fields() throws -> [(name: String, bytes: [UInt8])] {
        ProtocolDocument.fields(try ProtocolDocument.devices())
    }

    static func all(_ name: String) throws -> [[UInt8]] {
        try fields().filter { $0.name == name }.map(\.bytes)
    }

    static func one(_ name: String) throws -> [UInt8] {
        let values = try all(name)
        try #require(values.count == 1, "Protocol.md §20 gives \(values.count) values of \(name)")
        return values[0]
    }

    @Test func theKeysAreTheSeedsKeys() throws {
        #expect(try Self.one("P") == DeviceVector.person.publicKey.bytes)
        #expect(try Self.one("D1") == DeviceVector.laptop.publicKey.bytes)
        #expect(try Self.one("D2") == DeviceVector.phone.publicKey.bytes)
        #expect(try Self.one("E1") == DeviceVector.firstKey.publicKey)
        #expect(try Self.one("E2") == DeviceVector.secondKey.publicKey)
    }

    @Test func theCodeWritesTheDocumentedEntries() throws {
        let entries = try DeviceVector.documentedEntries()
        let fields = ["encoded", "content", "signature", "hash", "ephemeral", "wraps"]
        for name in fields { #expect(try Self.all(name).count == entries.count, "\(name)") }
        for (index, entry) in entries.enumerated() {
            #expect(try Self.all("encoded")[index] == DeviceEntryCodec.encode(entry), "entry \(index + 1): encoded")
            #expect(try Self.all("content")[index] == entry.content, "entry \(index + 1): content")
            #expect(try Self.all("signature")[index] == entry.signature, "entry \(index + 1): signature")
            #expect(try Self.all("hash")[index] == entry.hash.bytes, "entry \(index + 1): hash")
            #expect(try Self.all("ephemeral")[index] == entry.keys.ephemeral, "entry \(index + 1): ephemeral")
            #expect(try Self.all("wraps")[index] == entry.keys.wraps, "entry \(index + 1): wraps")
        }
    }

    @Test func theDocumentedBytesAreTheListTheTextDescribes() throws {
        let list = try DeviceEntryCodec.decodeList(try Self.all("encoded"), person: DeviceVector.personID)
        for (entry, content) in zip(list.entries, try Self.all("content")) {
            #expect(entry.content == content)
            #expect(entry.hash.bytes == Hash.blake2b(content, length: 32))
            #expect(DeviceEntryCodec.hasValidSignature(entry))
        }
        #expect(list.devices.map(\.key) == [DeviceVector.personID, DeviceVector.phoneID])
        #expect(list.devices.map(\.name) == [nil, "work phone"])
        #expect(list.entries.last?.change == .rename(device: DeviceVector.phoneID, name: "work phone"))
        #expect(list.removal(of: DeviceVector.laptopID)?.cuts == [DeviceVector.cut.conversation: 3])
        #expect(list.encryptionKey == DeviceVector.secondKey.publicKey)
        #expect(list.encryptionKeyPair(for: DeviceVector.person)?.publicKey == DeviceVector.secondKey.publicKey)
        #expect(list.encryptionKeyPair(for: DeviceVector.phone)?.publicKey == DeviceVector.secondKey.publicKey)
        #expect(list.encryptionKeyPair(for: DeviceVector.laptop)?.publicKey == nil)
        #expect(list.entries.map(\.timestamp) == DeviceVector.timestamps)
        #expect(list.entries.count == 4)
    }
}
