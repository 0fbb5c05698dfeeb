extension KeyDecoder {
    mutating func startCharacter(_ lead: UInt8, alt: Bool) {
        state = .utf8(alt: alt)
        utf8.removeAll(keepingCapacity: true)
        utf8.append(lead)
        utf8Length =
            switch lead {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            default: 4
            }
    }

    mutating func continueCharacter(_ byte: UInt8, alt: Bool, into keys: inout [Key]) {
        guard Self.canFollow(byte, at: utf8.count, lead: utf8[0]) else {
            // The character was cut short: it is dropped and the byte stands on its own.
            state = .ground
            ground(byte, into: &keys)
            return
        }
        utf8.append(byte)
        guard utf8.count == utf8Length else { return }
        state = .ground
        guard let scalar = Self.scalar(utf8), !Self.isControl(scalar) else { return }
        let character = Character(scalar)
        keys.append(alt ? .alt(character) : .character(character))
    }

    /// A continuation byte, narrowed after leads where some values would be overlong,
    /// surrogates or beyond U+10FFFF (so every complete sequence decodes).
    private static func canFollow(_ byte: UInt8, at index: Int, lead: UInt8) -> Bool {
        guard (0x80...0xBF).contains(byte) else { return false }
        guard index == 1 else { return true }
        switch lead {
        case 0xE0: return byte >= 0xA0
        case 0xED: return byte <= 0x9F
        case 0xF0: return byte >= 0x90
        case 0xF4: return byte <= 0x8F
        default: return true
        }
    }

    private static func scalar(_ bytes: [UInt8]) -> Unicode.Scalar? {
        let leadBits: UInt32 =
            switch bytes.count {
            case 2: UInt32(bytes[0] & 0x1F)
            case 3: UInt32(bytes[0] & 0x0F)
            default: UInt32(bytes[0] & 0x07)
            }
        let value = bytes.dropFirst().reduce(leadBits) { $0 << 6 | UInt32($1 & 0x3F) }
        return Unicode.Scalar(value)
    }

    /// C1 controls (U+0080–U+009F) would act on the screen if echoed; they are no keys.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
