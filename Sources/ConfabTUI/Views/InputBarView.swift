import ConfabModel

/// The input at the bottom of the chat: a rule, then the text wrapped at the pane's width,
/// growing to five lines and scrolling inside them to keep the cursor in view.
struct InputBarView {
    static let prompt = "› "
    static let placeholder = "Message — Enter sends, Alt+Enter adds a line"

    /// The text as screen rows, and where the cursor is among them.
    struct Wrapped {
        var rows: [String]
        var cursorRow: Int
        var cursorColumn: Int
    }

    let buffer: InputBuffer
    let width: Int
    let isFocused: Bool
    /// Said in the bar's rule: what the message being typed answers.
    var banner: String?

    private var textWidth: Int { max(1, width - DisplayWidth.of(Self.prompt)) }

    /// Lines of text the bar shows (not counting its rule): 1 to 5.
    static func textLines(_ buffer: InputBuffer, width: Int) -> Int {
        let view = InputBarView(buffer: buffer, width: width, isFocused: true)
        return min(Layout.maxInputLines, view.wrapped().rows.count)
    }

    /// Hard wrapping by columns (not at words), so every character keeps one place and the
    /// cursor can be drawn exactly where the next character goes.
    func wrapped() -> Wrapped {
        var rows = [""]
        var column = 0
        var cursorRow = 0
        var cursorColumn = 0
        for (index, character) in buffer.characters.enumerated() {
            let characterWidth = character == "\n" ? 0 : DisplayWidth.of(character)
            if character != "\n", column + characterWidth > textWidth, column > 0 {
                rows.append("")
                column = 0
            }
            if index == buffer.cursor {
                cursorRow = rows.count - 1
                cursorColumn = column
            }
            if character == "\n" {
                rows.append("")
                column = 0
            } else {
                rows[rows.count - 1].append(character)
                column += characterWidth
            }
        }
        if buffer.cursor == buffer.characters.count {
            if column >= textWidth {
                rows.append("")
                column = 0
            }
            cursorRow = rows.count - 1
            cursorColumn = column
        }
        return Wrapped(rows: rows, cursorRow: cursorRow, cursorColumn: cursorColumn)
    }

    /// The rule above the text, with the banner in it when there is one.
    private func rule() -> ScreenLine {
        guard let banner, width > 6 else { return .rule(width: width) }
        var line = ScreenLine("─ ", Palette.rule)
        line.append(TextSanitizer.line(banner), Palette.bold)
        line.append(" ", Palette.rule)
        line.append(String(repeating: "─", count: max(0, width - line.width)), Palette.rule)
        return line.fitted(to: width)
    }

    /// The bar's lines, and the cursor as (row within the bar, column) when focused.
    func render() -> (lines: [ScreenLine], cursor: (row: Int, column: Int)?) {
        let wrapped = wrapped()
        let shown = min(Layout.maxInputLines, wrapped.rows.count)
        let first = min(max(0, wrapped.cursorRow - shown + 1), wrapped.rows.count - shown)
        var lines: [ScreenLine] = [rule()]
        let indent = String(repeating: " ", count: DisplayWidth.of(Self.prompt))
        for (offset, row) in wrapped.rows[first..<first + shown].enumerated() {
            var line = ScreenLine(first + offset == 0 ? Self.prompt : indent, isFocused ? Palette.bold : Palette.dim)
            if buffer.isEmpty {
                line.append(Self.placeholder, Palette.placeholder)
            } else {
                line.append(row)
            }
            lines.append(line.fitted(to: width))
        }
        guard isFocused else { return (lines, nil) }
        let column = DisplayWidth.of(Self.prompt) + wrapped.cursorColumn
        return (lines, (1 + wrapped.cursorRow - first, min(column, max(0, width - 1))))
    }
}
