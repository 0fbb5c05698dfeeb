extension ScreenLine {
    /// The same text with every span's style changed, e.g. reversed for a selected row.
    func restyled(_ change: (inout TextStyle) -> Void) -> ScreenLine {
        ScreenLine(
            spans.map { span in
                var style = span.style
                change(&style)
                return Span(span.text, style)
            })
    }

    /// `left` cut to leave room for `right`, which is pushed to the right edge; the whole
    /// line is exactly `width` columns. `right` is dropped when the two cannot both fit.
    static func justified(
        _ left: ScreenLine, _ right: ScreenLine, width: Int, fill: TextStyle = .plain
    )
        -> ScreenLine
    {
        let rightWidth = right.width
        guard rightWidth > 0, rightWidth + 4 <= width else { return left.fitted(to: width, fill: fill) }
        var line = left.fitted(to: width - rightWidth, fill: fill)
        line.append(right)
        return line
    }

    /// `content` centred in `width` columns.
    static func centered(_ content: ScreenLine, width: Int) -> ScreenLine {
        let contentWidth = content.width
        guard contentWidth < width else { return content.fitted(to: width) }
        var line = ScreenLine(String(repeating: " ", count: (width - contentWidth) / 2))
        line.append(content)
        return line.fitted(to: width)
    }

    /// `content` pushed to the right edge of `width` columns.
    static func rightAligned(_ content: ScreenLine, width: Int, margin: Int = 0) -> ScreenLine {
        let contentWidth = content.width + margin
        guard contentWidth < width else { return content.fitted(to: width) }
        var line = ScreenLine(String(repeating: " ", count: width - contentWidth))
        line.append(content)
        return line.fitted(to: width)
    }

    static func rule(width: Int) -> ScreenLine {
        ScreenLine(String(repeating: "─", count: max(0, width)), Palette.rule)
    }
}
