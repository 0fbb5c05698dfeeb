import ConfabModel

/// The reaction picker (+ on a selected message): the message, the quick emoji numbered,
/// the one under the cursor reversed and mine marked ✓, and a field for any other emoji.
///
///     ┌─ React ───────────────────────────────┐
///     │ Bob: Are you coming tonight?          │
///     │                                       │
///     │ 1 👍  2 ❤️ ✓  3 😂  4 😮  …           │
///     │ Or type one: _                        │
///     │ Enter chooses · yours again takes it back · Esc │
///     └───────────────────────────────────────┘
struct ReactOverlay {
    static let title = "React"
    static let prompt = "Or type one: "
    static let hint = "1–8 or ←/→ and Enter · choosing one of yours takes it back · Esc closes"

    let panel: ReactPanel
    let screenWidth: Int
    let screenHeight: Int

    func box() -> (box: OverlayBox, cursor: Frame.Cursor) {
        let width = min(72, max(20, screenWidth - 6))
        var content = [
            ScreenLine(Preview.line(panel.message.quoteLine, mine: false, limit: width), Palette.bold), ScreenLine(),
        ]
        var choices = ScreenLine()
        let mine = panel.mine
        for (index, emoji) in ReactPanel.quick.enumerated() {
            if index > 0 { choices.append("  ") }
            var label = "\(index + 1) \(emoji)"
            if mine.contains(emoji) { label += " ✓" }
            choices.append(label, index == panel.cursor && panel.typed.isEmpty ? Palette.selected : Palette.plain)
        }
        content.append(choices)
        var field = ScreenLine(Self.prompt, Palette.bold)
        field.append(TextSanitizer.line(panel.typed.text))
        content.append(field)
        content += TextWrap.wrap(Self.hint, width: width).map { ScreenLine($0, Palette.dim) }
        let box = OverlayBox(
            title: Self.title, content: content, preferredWidth: width, screenWidth: screenWidth,
            screenHeight: screenHeight)
        let before = String(panel.typed.characters.prefix(panel.typed.cursor))
        let column = DisplayWidth.of(Self.prompt) + DisplayWidth.of(TextSanitizer.line(before))
        return (box, box.screenPosition(contentRow: 3, column: column))
    }
}
