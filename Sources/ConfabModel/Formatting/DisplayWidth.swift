/// How many terminal columns text takes: wide East Asian characters and emoji take two,
/// combining marks none. Alignment in lists and chats depends on it.
public enum DisplayWidth {
    public static func of(_ text: some StringProtocol) -> Int {
        of(String(text))
    }

    /// Concrete, so callers in other modules get this specialised code rather than a
    /// generic walk through protocol witnesses (drawing a frame measures a lot of text).
    public static func of(_ text: String) -> Int {
        // Most text is printable ASCII, one column a byte; Unicode properties are slow
        // enough to dominate drawing a frame, so they are looked up only when needed.
        var text = text
        let ascii = text.withUTF8 { bytes in bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
        if ascii { return text.utf8.count }
        var width = 0
        for character in text { width += of(character) }
        return width
    }

    public static func of(_ character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii >= 0x20 && ascii < 0x7F ? 1 : 0 }
        let scalars = character.unicodeScalars
        if let only = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex {
            let value = only.value
            if value < 0x300 { return value < 0xA0 ? 0 : 1 }
            if value >= symbolsStart, value < symbolsEnd { return Int(symbolWidths[Int(value - symbolsStart)]) }
        }
        return measured(character)
    }

    /// Punctuation, arrows, box drawing, shapes, dingbats: what a chat's chrome is made
    /// of. Their widths are looked up once, since Unicode properties are slow to query
    /// and every frame is full of them.
    private static let symbolsStart: UInt32 = 0x2000
    private static let symbolsEnd: UInt32 = 0x2C00
    private static let symbolWidths: [UInt8] = (symbolsStart..<symbolsEnd).map { value in
        Unicode.Scalar(value).map { UInt8(measured(Character($0))) } ?? 1
    }

    private static func measured(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }  // emoji presentation
        if first.properties.isEmojiPresentation { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return isWide(first.value) ? 2 : 1
    }

    /// Cuts `text` to at most `width` columns, ending with "…" when cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 1 else { return width == 1 ? "…" : "" }
        var out = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// Pads `text` with spaces to exactly `width` columns (truncating if longer).
    public static func pad(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        return cut + String(repeating: " ", count: max(0, width - of(cut)))
    }

    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
