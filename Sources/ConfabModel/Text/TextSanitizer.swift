/// Makes text from the network safe to draw. A message, name or title could carry escape
/// sequences that move the cursor, recolour the screen, set the window title or reorder
/// what follows (bidi overrides); all of that is dropped, and line breaks of every kind
/// become plain newlines so views decide how to show them. The chat and the command line
/// share this one, so both show network text the same way.
public enum TextSanitizer {
    /// The text as lines: each line free of control characters.
    public static func lines(_ text: String) -> [String] {
        clean(text, newline: "\n").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The text on one line: line breaks become spaces.
    public static func line(_ text: String) -> String {
        clean(text, newline: " ")
    }

    /// Text the user typed or pasted into an input: newlines kept as "\n", tabs as spaces.
    public static func input(_ text: String) -> String {
        clean(text, newline: "\n")
    }

    private static func clean(_ text: String, newline: Unicode.Scalar) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let value = scalars[index].value
            switch value {
            case 0x1B:
                index = skipEscape(scalars, from: index + 1)
                continue
            case 0x9B:
                index = skipControlSequence(scalars, from: index + 1)
                continue
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F:
                index = skipControlString(scalars, from: index + 1)
                continue
            case 0x0D:
                if index + 1 < scalars.count, scalars[index + 1].value == 0x0A { index += 1 }
                out.append(newline)
            case 0x0A, 0x0B, 0x0C, 0x85, 0x2028, 0x2029:
                out.append(newline)
            case 0x09:
                out.append(" ")
            case 0x00..<0x20, 0x7F..<0xA0, 0x202A...0x202E, 0x2066...0x2069:
                break
            default:
                out.append(scalars[index])
            }
            index += 1
        }
        return String(out)
    }

    /// After ESC: a control sequence (CSI), a control string (OSC, DCS, …) or a short
    /// escape of intermediates and one final character.
    private static func skipEscape(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        guard start < scalars.count else { return start }
        switch scalars[start] {
        case "[": return skipControlSequence(scalars, from: start + 1)
        case "]", "P", "X", "^", "_": return skipControlString(scalars, from: start + 1)
        default:
            var index = start
            while index < scalars.count, (0x20...0x2F).contains(scalars[index].value) { index += 1 }
            return index < scalars.count ? index + 1 : index
        }
    }

    private static func skipControlSequence(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index < scalars.count, (0x20...0x3F).contains(scalars[index].value) { index += 1 }
        if index < scalars.count, (0x40...0x7E).contains(scalars[index].value) { index += 1 }
        return index
    }

    /// A control string ends with BEL, ST (ESC \) or the 8-bit ST.
    private static func skipControlString(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index < scalars.count {
            switch scalars[index].value {
            case 0x07, 0x9C: return index + 1
            case 0x1B: return index + 1 < scalars.count && scalars[index + 1] == "\\" ? index + 2 : index + 1
            default: index += 1
            }
        }
        return index
    }
}
