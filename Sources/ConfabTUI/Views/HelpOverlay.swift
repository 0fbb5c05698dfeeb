import ConfabModel

/// `?` from the list: every key binding, by where it works. Any key closes it.
struct HelpOverlay {
    static let title = "Keys"
    static let footer = "Press any key to close"

    let screenWidth: Int
    let screenHeight: Int

    func box() -> OverlayBox {
        let keyWidth = KeyBindings.sections.flatMap(\.bindings).map { DisplayWidth.of($0.keys) }.max() ?? 0
        var content: [ScreenLine] = []
        for section in KeyBindings.sections {
            if !content.isEmpty { content.append(ScreenLine()) }
            content.append(ScreenLine(section.title, Palette.bold))
            for binding in section.bindings {
                var line = ScreenLine("  " + DisplayWidth.pad(binding.keys, to: keyWidth), Palette.key)
                line.append("  " + binding.action)
                content.append(line)
            }
        }
        content.append(ScreenLine())
        content.append(ScreenLine(Self.footer, Palette.dim))
        let width = content.map(\.width).max() ?? 0
        return OverlayBox(
            title: Self.title, content: content, preferredWidth: width, screenWidth: screenWidth,
            screenHeight: screenHeight)
    }
}
