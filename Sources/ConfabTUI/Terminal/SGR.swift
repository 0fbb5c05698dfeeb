/// Select Graphic Rendition: the sequence that sets a `TextStyle`.
enum SGR {
    /// Always starts from a reset, so the result does not depend on what was set before.
    static func sequence(for style: TextStyle) -> [UInt8] {
        var codes = [0]
        if style.bold { codes.append(1) }
        if style.dim { codes.append(2) }
        if style.italic { codes.append(3) }
        if style.underline { codes.append(4) }
        if style.reverse { codes.append(7) }
        if let foreground = style.foreground { codes.append(colorCode(foreground, base: 30)) }
        if let background = style.background { codes.append(colorCode(background, base: 40)) }
        let parameters = codes.map(String.init).joined(separator: ";")
        return Array("\u{1B}[\(parameters)m".utf8)
    }

    /// 30–37 / 40–47 for the normal colours, 90–97 / 100–107 for the bright ones.
    private static func colorCode(_ color: TextStyle.Color, base: Int) -> Int {
        let index = Int(color.rawValue)
        return index < 8 ? base + index : base + 60 + index - 8
    }
}
