import ConfabModel
import SwiftProtobuf

extension EntryCodec {
    /// The conversation an encoded entry claims to belong to, without verifying anything:
    /// for routing acknowledgements only, never for trusting the entry.
    public static func peekConversationID(_ bytes: [UInt8]) -> ConversationID? {
        guard bytes.count <= Limits.maxEntryBytes,
            let signed = try? Confab_V1_SignedEntry(serializedBytes: bytes, options: decodingOptions),
            let content = try? Confab_V1_EntryContent(serializedBytes: signed.content, options: decodingOptions)
        else { return nil }
        return ConversationID(bytes: content.conversationID)
    }
}
