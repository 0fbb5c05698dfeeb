import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// Session-message vectors written in Protocol.md itself, read out of the document and
/// checked both ways: the codec's bytes are the document's, and the document's bytes decode
/// to the message it describes. A stale vector fails here.
@Suite struct DocumentedSessionVectorTests {
    /// Protocol.md at the repository's root.
    private static func document() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("Protocol.md"), encoding: .utf8)
    }

    /// The bytes in the first code span after `lead`, read as hex (spaces ignored).
    private static func vector(after lead: String) throws -> [UInt8] {
        let text = try document()
        let start = try #require(text.range(of: lead), "Protocol.md no longer says \"\(lead)\"")
        let rest = text[start.upperBound...]
        let open = try #require(rest.firstIndex(of: "`"))
        let body = rest[rest.index(after: open)...]
        let close = try #require(body.firstIndex(of: "`"))
        let hex = body[..<close].filter { !$0.isWhitespace }
        #expect(hex.count % 2 == 0 && hex.allSatisfy(\.isHexDigit), "not hex: \(hex)")
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test func aPartialClockAcknowledgement() throws {
        let conversation = try #require(ConversationID(bytes: [UInt8](repeating: 0x07, count: 16)))
        let author = try #require(NodeID(bytes: [UInt8](repeating: 0x0b, count: 32)))
        let message = SessionMessage.clocks([
            .init(conversation: conversation, clock: VectorClock([author: 5]), partial: true)
        ])
        let documented = try Self.vector(after: "whose partial clock names author\n`0b…0b` at seq 5 is")
        #expect(SessionCodec.encode(message) == documented)
        #expect(try SessionCodec.decode(documented) == message)
    }

    /// `FileWant.chunks` (Protocol.md §17.4): written packed, read packed or not.
    @Test func aFileWantPackedAndUnpacked() throws {
        let file = try #require(FileID(bytes: [UInt8](repeating: 0x0c, count: 32)))
        let message = SessionMessage.fileWant(.init(file: file, chunks: [1, 300]))
        let packed = try Self.vector(after: "For file `0c…0c`, chunks 1 and 300, packed:")
        let unpacked = try Self.vector(after: "the same unpacked, which means the same:")
        #expect(SessionCodec.encode(message) == packed)
        #expect(try SessionCodec.decode(packed) == message)
        #expect(try SessionCodec.decode(unpacked) == message)
    }
}
