import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// The `DeviceList` session message (Protocol.md §10.2, §20.9): a list travels whole, within
/// the limits of a list and of a session message, and only to a peer that says it reads it.
@Suite struct DeviceListMessageTests {
    static let person = DeviceVector.personID

    @Test func aListRoundTripsWithItsEntriesAsSent() throws {
        let entries = try DeviceVector.entries().map(DeviceEntryCodec.encode)
        let message = try #require(SessionCodec.deviceListMessage(person: Self.person, entries: entries))
        let decoded = try SessionCodec.decode(SessionCodec.encode(message))
        #expect(decoded == .deviceList(person: Self.person, entries: entries))
        guard case .deviceList(let person, let received) = decoded else { return }
        #expect(try DeviceEntryCodec.decodeList(received, person: person) == DeviceVector.list())
    }

    @Test func theKindIsFieldTwelveOfSessionMessage() throws {
        let wire = try Confab_V1_SessionMessage(
            serializedBytes: SessionCodec.encode(.deviceList(person: Self.person, entries: [[1, 2]])))
        #expect(wire.deviceList.person == Data(Self.person.bytes))
        #expect(SessionCodec.encode(.deviceList(person: Self.person, entries: []))[0] == 12 << 3 | 2)
    }

    @Test func aReceiverRefusesWhatBreaksTheListLimits() throws {
        let tooMany = SessionMessage.deviceList(
            person: Self.person, entries: Array(repeating: [1], count: DeviceList.maxEntries + 1))
        #expect(throws: WireError.self) { try SessionCodec.decode(SessionCodec.encode(tooMany)) }
        let atTheLimit = SessionMessage.deviceList(
            person: Self.person, entries: Array(repeating: [1], count: DeviceList.maxEntries))
        #expect(try SessionCodec.decode(SessionCodec.encode(atTheLimit)) == atTheLimit)
        let bigEntry = SessionMessage.deviceList(
            person: Self.person, entries: [[UInt8](repeating: 0, count: DeviceList.maxEntryBytes + 1)])
        #expect(throws: WireError.self) { try SessionCodec.decode(SessionCodec.encode(bigEntry)) }
        let largestEntry = SessionMessage.deviceList(
            person: Self.person, entries: [[UInt8](repeating: 0, count: DeviceList.maxEntryBytes)])
        #expect(try SessionCodec.decode(SessionCodec.encode(largestEntry)) == largestEntry)
        for length in [0, 31, 33] {
            var wire = Confab_V1_SessionMessage()
            wire.deviceList.person = Data(repeating: 5, count: length)
            let bytes: [UInt8] = try wire.serializedBytes()
            #expect(throws: WireError.self) { try SessionCodec.decode(bytes) }
        }
    }

    /// A list that would not fit one session message is not sent at all (§10.2).
    @Test func aSenderSendsOnlyAListThatFitsOneMessage() throws {
        let largest = [UInt8](repeating: 0, count: DeviceList.maxEntryBytes)
        // Three of the largest entries fit 1 MiB; four do not.
        let three = try #require(
            SessionCodec.deviceListMessage(person: Self.person, entries: Array(repeating: largest, count: 3)))
        #expect(SessionCodec.encode(three).count <= SessionCodec.maxMessageBytes)
        #expect(
            SessionCodec.deviceListMessage(person: Self.person, entries: Array(repeating: largest, count: 4)) == nil)
        // Exactly at the bound, and one byte over it.
        let fill = SessionCodec.maxMessageBytes - SessionCodec.encode(three).count
        // A fourth entry costs its tag and a length of 3 bytes besides its own.
        let fourth = fill - 4
        let exact = Array(repeating: largest, count: 3) + [[UInt8](repeating: 0, count: fourth)]
        let fits = try #require(SessionCodec.deviceListMessage(person: Self.person, entries: exact))
        #expect(SessionCodec.encode(fits).count == SessionCodec.maxMessageBytes)
        #expect(try SessionCodec.decode(SessionCodec.encode(fits)) == fits)
        let over = Array(repeating: largest, count: 3) + [[UInt8](repeating: 0, count: fourth + 1)]
        #expect(SessionCodec.deviceListMessage(person: Self.person, entries: over) == nil)
        let tooMany = Array(repeating: [UInt8]([1]), count: DeviceList.maxEntries + 1)
        #expect(SessionCodec.deviceListMessage(person: Self.person, entries: tooMany) == nil)
    }

    @Test func theHelloSaysItReadsLists() {
        #expect(SessionMessage.Hello(displayName: "a", role: .person, listenPort: 1).features.contains("device-lists"))
        #expect(SessionCodec.deviceListsFeature == "device-lists")
    }
}
