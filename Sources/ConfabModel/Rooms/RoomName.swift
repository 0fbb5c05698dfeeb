import Foundation

/// The name of a room (Protocol.md §18): what people type after `confab join` and what
/// the room's id and key are derived from, so two people who type the same name meet in
/// the same room. Only lowercase ASCII letters, digits and `-`, `_`, `.`, starting with a
/// letter or a digit, at most 32 bytes: every node reads a name the same way, no two names
/// look alike, and a name is safe to print anywhere.
public struct RoomName: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public static let maxBytes = 32

    public let text: String

    /// A name exactly as it travels: valid, or nil.
    public init?(exactly text: String) {
        let bytes = Array(text.utf8)
        guard (1...Self.maxBytes).contains(bytes.count), let first = bytes.first, Self.isAlphanumeric(first),
            bytes.allSatisfy({
                Self.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
            })
        else { return nil }
        self.text = text
    }

    /// A name as a person types it: a leading `#` and surrounding spaces are dropped and
    /// letters are lowercased, so `#General` is `general`.
    public init?(typed: String) {
        var text = typed.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("#") { text.removeFirst() }
        self.init(exactly: text.lowercased())
    }

    /// What a person is told when a typed name is not one.
    public static let rule =
        "a room name is 1 to 32 lowercase letters, digits, '-', '_' or '.', starting with a letter or a digit"

    public var description: String { "#" + text }

    public static func < (a: RoomName, b: RoomName) -> Bool { a.text < b.text }

    /// As a string (`"general"`), checked when read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let name = RoomName(exactly: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.rule)
        }
        self = name
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
