import ConfabModel
import SwiftProtobuf

extension EntryCodec {
    /// The conversation an encoded entry claims to belong to, without verifying anything:
    /// for routing acknowledgements only, never for trusting the entry.
    public static func peekConversationID(_ bytes: [UInt8]) -> ConversationID? {
        peekContent(bytes).flatMap { ConversationID(bytes: $0.conversationID) }
    }

    /// What an encoded entry claims about itself, without verifying anything: enough for a
    /// relay to refuse it early. Refusing on a forged claim only hurts the forger, and what
    /// is accepted is still fully validated before it is stored.
    public static func peek(_ bytes: [UInt8]) -> EntryPeek? {
        guard let content = peekContent(bytes), let conversation = ConversationID(bytes: content.conversationID),
            let author = NodeID(bytes: content.author)
        else { return nil }
        var participants: [NodeID]?
        if case .create(let create)? = content.body {
            participants = create.participants.compactMap { NodeID(bytes: $0.key) }
        }
        return EntryPeek(conversation: conversation, author: author, participants: participants)
    }

    /// Where an encoded entry claims to stand and the hash of its content, without
    /// verifying the signature: enough to see that the very same entry is already held.
    /// The hash covers everything the signature covers, so an entry held under that hash
    /// is this entry, whoever signed the copy at hand.
    public static func peekPosition(_ bytes: [UInt8]) -> EntryPosition? {
        guard bytes.count <= Limits.maxEntryBytes,
            let signed = try? Confab_V1_SignedEntry(serializedBytes: bytes, options: decodingOptions),
            let content = try? Confab_V1_EntryContent(serializedBytes: signed.content, options: decodingOptions),
            let conversation = ConversationID(bytes: content.conversationID),
            let author = NodeID(bytes: content.author)
        else { return nil }
        return EntryPosition(
            conversation: conversation, author: author, seq: content.seq, timestamp: content.timestampMs,
            hash: EntryHash.of(content: [UInt8](signed.content)))
    }

    /// The content hash of an encoded entry that carries a signature of its own; nil for one
    /// left `unsigned` (or not an entry). Neither the content is decoded nor the signature
    /// checked: a sender looking for the signed entry to end a run on (§12 step 3) passes
    /// over the unsigned ones cheaply, and finds one it made or checked by its hash.
    public static func peekSignedHash(_ bytes: [UInt8]) -> EntryHash? {
        guard bytes.count <= Limits.maxEntryBytes,
            let signed = try? Confab_V1_SignedEntry(serializedBytes: bytes, options: decodingOptions),
            !signed.signature.elementsEqual(unsigned)
        else { return nil }
        return EntryHash.of(content: [UInt8](signed.content))
    }

    private static func peekContent(_ bytes: [UInt8]) -> Confab_V1_EntryContent? {
        guard bytes.count <= Limits.maxEntryBytes,
            let signed = try? Confab_V1_SignedEntry(serializedBytes: bytes, options: decodingOptions)
        else { return nil }
        return try? Confab_V1_EntryContent(serializedBytes: signed.content, options: decodingOptions)
    }
}

/// The unverified routing facts of an encoded entry.
public struct EntryPeek: Sendable, Equatable {
    public let conversation: ConversationID
    public let author: NodeID
    /// Set for a create entry only: the participants it names.
    public let participants: [NodeID]?

    public init(conversation: ConversationID, author: NodeID, participants: [NodeID]?) {
        self.conversation = conversation
        self.author = author
        self.participants = participants
    }
}

/// An encoded entry's claimed place in its author's log, when its author says it wrote it,
/// and its content hash.
public struct EntryPosition: Sendable, Hashable {
    public let conversation: ConversationID
    public let author: NodeID
    public let seq: UInt64
    /// Milliseconds since the Unix epoch, by the author's clock (covered by the hash).
    public let timestamp: Int64
    public let hash: EntryHash
}
