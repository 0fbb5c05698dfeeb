import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// Session-message vectors written in Protocol.md itself, read out of the document and
/// checked both ways: the codec's bytes are the document's, and the document's bytes decode
/// to the message it describes. A stale vector fails here.
@Suite struct DocumentedSessionVectorTests {
    @Test func aPartialClockAcknowledgement() throws {
        let conversation = try #require(ConversationID(bytes: [UInt8](repeating: 0x07, count: 16)))
        let author = try #require(NodeID(bytes: [UInt8](repeating: 0x0b, count: 32)))
        let message = SessionMessage.clocks([
            .init(conversation: conversation, clock: VectorClock([author: 5]), partial: true)
        ])
        let documented = try ProtocolDocument.codeSpan(after: "whose partial clock names author\n`0b…0b` at seq 5 is")
        #expect(SessionCodec.encode(message) == documented)
        #expect(try SessionCodec.decode(documented) == message)
    }

    /// `DeviceList` (§10.2): the list of §20.8's person holding its entry 1, the entry's bytes
    /// read out of §20.8 after the message's own, which §10.2 gives.
    @Test func aDeviceListOfOneEntry() throws {
        let person = try #require(
            NodeID(hex: "c050c5637a44fa8629fff3cccce2300cb362a63d99d95fc54145266f4332445a"))
        let entry = try #require(ProtocolDocument.fields(try ProtocolDocument.devices()).first { $0.name == "encoded" })
        #expect(entry.bytes.count == 294)
        let head = try ProtocolDocument.codeSpan(after: "the list of P of §20.8 holding its entry 1 alone is")
        let documented = head + entry.bytes
        let message = SessionMessage.deviceList(person: person, entries: [entry.bytes])
        #expect(SessionCodec.encode(message) == documented)
        #expect(try SessionCodec.decode(documented) == message)
        #expect(try DeviceEntryCodec.decodeList([entry.bytes], person: person).count == 1)
    }

    /// `FileWant.chunks` (Protocol.md §17.4): written packed, read packed or not.
    @Test func aFileWantPackedAndUnpacked() throws {
        let file = try #require(FileID(bytes: [UInt8](repeating: 0x0c, count: 32)))
        let message = SessionMessage.fileWant(.init(file: file, chunks: [1, 300]))
        let packed = try ProtocolDocument.codeSpan(after: "For file `0c…0c`, chunks 1 and 300, packed:")
        let unpacked = try ProtocolDocument.codeSpan(after: "the same unpacked, which means the same:")
        #expect(SessionCodec.encode(message) == packed)
        #expect(try SessionCodec.decode(packed) == message)
        #expect(try SessionCodec.decode(unpacked) == message)
    }
}
