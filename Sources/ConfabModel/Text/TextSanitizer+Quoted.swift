extension TextSanitizer {
    /// The text in double quotes, with quotes, backslashes and every character that could
    /// act on a terminal or break a line escaped (`\n`, `\u{1B}`, …): for logs and warnings,
    /// where what a peer sent must stay visible, yet cannot forge a line or move the cursor.
    /// Unlike `debugDescription`, it also escapes C1 controls, bidi overrides and other
    /// format characters.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator:
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                default:
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
