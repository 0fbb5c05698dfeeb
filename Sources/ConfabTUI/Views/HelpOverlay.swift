import ConfabModel

/// `?` from the list: every key binding, by where it works. On a screen too short for all
/// of them ↑/↓ and PgUp/PgDn scroll; any other key closes it.
struct HelpOverlay {
    static let title = "Keys"
    static let footer = "Press any key to close"
    static let scrollFooter = "↑/↓ PgUp/PgDn scroll · any other key closes"

    /// The first binding line shown.
    let top: Int
    let screenWidth: Int
    let screenHeight: Int

    /// Every line of the help, sections one after another.
    static let lines: [ScreenLine] = {
        let keyWidth = KeyBindings.sections.flatMap(\.bindings).map { DisplayWidth.of($0.keys) }.max() ?? 0
        var lines: [ScreenLine] = []
        for section in KeyBindings.sections {
            if !lines.isEmpty { lines.append(ScreenLine()) }
            lines.append(ScreenLine(section.title, Palette.bold))
            for binding in section.bindings {
                var line = ScreenLine("  " + DisplayWidth.pad(binding.keys, to: keyWidth), Palette.key)
                line.append("  " + binding.action)
                lines.append(line)
            }
        }
        return lines
    }()

    /// Help lines that fit between the border and the footer.
    static func visibleRows(screenHeight: Int) -> Int {
        max(1, screenHeight - 3)
    }

    /// The furthest the help scrolls: its last line at the bottom of the box.
    static func maxTop(screenHeight: Int) -> Int {
        max(0, lines.count - visibleRows(screenHeight: screenHeight))
    }

    func box() -> OverlayBox {
        let rows = Self.visibleRows(screenHeight: screenHeight)
        let first = min(max(0, top), Self.maxTop(screenHeight: screenHeight))
        var content = Array(Self.lines.dropFirst(first).prefix(rows))
        let scrolls = Self.lines.count > rows
        content.append(ScreenLine(scrolls ? Self.scrollFooter : Self.footer, Palette.dim))
        let width = (Self.lines + [ScreenLine(Self.scrollFooter)]).map(\.width).max() ?? 0
        return OverlayBox(
            title: Self.title, content: content, preferredWidth: width, screenWidth: screenWidth,
            screenHeight: screenHeight)
    }
}
