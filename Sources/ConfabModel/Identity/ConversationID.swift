import ConfabCrypto

/// A conversation's identity: 16 bytes, written as 32 hex characters. A real conversation's
/// id is derived from its creator's key and a nonce (ConfabWire's `ConversationGenesis`),
/// so only the creator can sign a create entry for it.
public struct ConversationID: ByteIdentifier {
    public static let length = 16

    public let bytes: [UInt8]

    public init(validatedBytes: [UInt8]) {
        bytes = validatedBytes
    }

    /// Random bytes: for tests and for ids that name no conversation.
    public static func random() -> ConversationID {
        ConversationID(validatedBytes: Random.bytes(length))
    }
}
