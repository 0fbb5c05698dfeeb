import ConfabCrypto

/// A conversation's identity: 16 random bytes chosen by its creator, written as 32 hex
/// characters. Random rather than content-derived so the id can sit inside the create
/// entry that the creator signs.
public struct ConversationID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let length = 16

    public let bytes: [UInt8]

    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = Array(bytes)
    }

    public init?(hex: String) {
        guard let decoded = Hex.decode(hex) else { return nil }
        self.init(bytes: decoded)
    }

    public static func random() -> ConversationID {
        ConversationID(bytes: Random.bytes(length))!
    }

    public var hex: String { Hex.encode(bytes) }
    public var shortHex: String { String(hex.prefix(8)) }
    public var description: String { hex }

    public static func < (lhs: ConversationID, rhs: ConversationID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

extension ConversationID: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ConversationID(hex: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a conversation id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
