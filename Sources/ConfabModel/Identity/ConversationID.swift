import ConfabCrypto

/// A conversation's identity: 16 random bytes chosen by its creator, written as 32 hex
/// characters. Random rather than content-derived so the id can sit inside the create
/// entry that the creator signs.
public struct ConversationID: ByteIdentifier {
    public static let length = 16

    public let bytes: [UInt8]

    public init(validatedBytes: [UInt8]) {
        bytes = validatedBytes
    }

    public static func random() -> ConversationID {
        ConversationID(validatedBytes: Random.bytes(length))
    }
}
