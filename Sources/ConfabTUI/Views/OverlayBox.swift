import ConfabModel

/// A bordered box centred on the screen, for help, search, new conversation and confirms.
struct OverlayBox {
    let title: String
    let content: [ScreenLine]
    /// Inside width wanted; the box shrinks to fit the screen.
    let preferredWidth: Int
    let screenWidth: Int
    let screenHeight: Int

    /// Columns inside the border (and one space of padding on each side).
    var innerWidth: Int { max(1, min(preferredWidth, screenWidth - 6)) }
    var outerWidth: Int { min(screenWidth, innerWidth + 4) }
    /// Content rows that fit on the screen.
    var visibleRows: Int { max(0, min(content.count, screenHeight - 2)) }
    var left: Int { max(0, (screenWidth - outerWidth) / 2) }
    var top: Int { max(0, (screenHeight - visibleRows - 2) / 2) }

    func lines() -> [ScreenLine] {
        let titleText = " \(title) "
        let rest = max(0, outerWidth - 3 - DisplayWidth.of(titleText))
        var topLine = ScreenLine("┌─", Palette.border)
        topLine.append(titleText, Palette.title)
        topLine.append(String(repeating: "─", count: rest) + "┐", Palette.border)
        var lines = [topLine.fitted(to: outerWidth)]
        for row in content.prefix(visibleRows) {
            var line = ScreenLine("│ ", Palette.border)
            line.append(row.fitted(to: innerWidth))
            line.append(" │", Palette.border)
            lines.append(line)
        }
        let bottom = "└" + String(repeating: "─", count: max(0, outerWidth - 2)) + "┘"
        lines.append(ScreenLine(bottom, Palette.border).fitted(to: outerWidth))
        return lines
    }

    func draw(on frame: inout Frame) {
        frame.place(lines(), top: top, left: left, width: outerWidth)
    }

    /// Where a content row and column are on the screen, for the cursor of a field.
    func screenPosition(contentRow: Int, column: Int) -> Frame.Cursor {
        Frame.Cursor(row: top + 1 + contentRow, column: left + 2 + min(column, innerWidth - 1))
    }
}
