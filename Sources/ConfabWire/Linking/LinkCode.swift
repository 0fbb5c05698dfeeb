import ConfabCrypto

/// A one-time link code (Protocol.md §20.10): 10 symbols of Crockford's base32, 50 random
/// bits, shown as `ABCDE-FGHJK`. Read as people type it: any case, `I` and `L` as 1, `O` as
/// 0, hyphens and spaces ignored.
public struct LinkCode: Sendable, Equatable, CustomStringConvertible {
    public static let symbolCount = 10
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// The 10 canonical symbols, upper case, no hyphen: what is hashed.
    public let symbols: String

    public static func generate() -> LinkCode {
        // 5 bits per symbol from one byte each: 256 is a multiple of 32, so no bias.
        let bytes = Random.bytes(symbolCount)
        return LinkCode(canonical: String(bytes.map { alphabet[Int($0 & 0x1f)] }))
    }

    private init(canonical: String) {
        symbols = canonical
    }

    /// Nil for anything that is not 10 symbols once read as above.
    public init?(text: String) {
        var out: [Character] = []
        for character in text.uppercased() {
            switch character {
            case "-", " ": continue
            case "I", "L": out.append("1")
            case "O": out.append("0")
            default:
                guard Self.alphabet.contains(character) else { return nil }
                out.append(character)
            }
            if out.count > Self.symbolCount { return nil }
        }
        guard out.count == Self.symbolCount else { return nil }
        symbols = String(out)
    }

    /// `ABCDE-FGHJK`.
    public var description: String {
        String(symbols.prefix(5)) + "-" + String(symbols.dropFirst(5))
    }
}
