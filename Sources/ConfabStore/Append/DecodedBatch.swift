import ConfabModel
import ConfabWire

/// The entries of one `Entries` message as they came, each decoded (its signature not
/// checked yet). Decoding is most of what taking an entry in costs before the write, so a
/// node decodes where the message arrives (on the session's event loop), while the thread
/// that stores is busy with the message before (`ConfabStore.append(batch:…decoded:)`).
/// It is about as large as the bytes again, which the node's inbox limit allows for.
public struct DecodedBatch: Sendable {
    /// The bytes decoded, in order.
    public let raw: [[UInt8]]
    let entries: [Result<Entry, AppendRejection>]

    public init(_ raw: [[UInt8]]) {
        self.raw = raw
        entries = raw.map(Self.decode)
    }

    /// What entry `index` claims about itself (`EntryCodec.peek`), read from its decoding so
    /// the bytes are not parsed again; nil when it did not decode (peek the bytes instead).
    public func peek(_ index: Int) -> EntryPeek? {
        guard case .success(let entry) = entries[index] else { return nil }
        var participants: [NodeID]?
        if case .create(let create) = entry.body { participants = create.participantIDs }
        return EntryPeek(conversation: entry.conversationID, author: entry.author, participants: participants)
    }

    static func decode(_ bytes: [UInt8]) -> Result<Entry, AppendRejection> {
        do throws(WireError) {
            return .success(try EntryCodec.decodeUnverified(bytes))
        } catch {
            return .failure(.wire(error))
        }
    }
}
