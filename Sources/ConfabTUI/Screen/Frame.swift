import ConfabModel

/// A whole screen: exactly `height` lines, each exactly `width` columns, plus where the
/// cursor goes (nil hides it). Views build frames; the terminal layer draws them.
public struct Frame: Hashable, Sendable {
    public struct Cursor: Hashable, Sendable {
        public var row: Int
        public var column: Int

        public init(row: Int, column: Int) {
            self.row = row
            self.column = column
        }
    }

    public let width: Int
    public let height: Int
    public private(set) var lines: [ScreenLine]
    public var cursor: Cursor?

    /// A blank frame.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        let blank = ScreenLine().fitted(to: self.width)
        lines = Array(repeating: blank, count: self.height)
    }

    /// Replaces row `row` (ignored outside the frame), fitting it to the width.
    public mutating func set(_ row: Int, _ line: ScreenLine, fill: TextStyle = .plain) {
        guard row >= 0, row < height else { return }
        lines[row] = line.fitted(to: width, fill: fill)
    }

    /// Copies `lines` into a rectangle: rows from `top`, columns from `left`, `width` wide.
    /// Panes are composed side by side this way.
    public mutating func place(_ pane: [ScreenLine], top: Int, left: Int, width paneWidth: Int) {
        for (offset, line) in pane.enumerated() {
            let row = top + offset
            guard row >= 0, row < height else { continue }
            let fitted = line.fitted(to: paneWidth)
            var current = lines[row]
            current = Self.splice(fitted, into: current, at: left, width: paneWidth, total: width)
            lines[row] = current
        }
    }

    /// Every row as plain text, for tests and `--plain` dumps.
    public var text: [String] { lines.map(\.text) }

    private static func splice(
        _ piece: ScreenLine, into line: ScreenLine, at left: Int, width pieceWidth: Int, total: Int
    ) -> ScreenLine {
        let before = line.prefix(columns: left)
        let after = line.suffix(fromColumn: left + pieceWidth)
        var result = before
        result.append(piece)
        result.append(after)
        return result.fitted(to: total)
    }
}

extension ScreenLine {
    /// The first `columns` columns; a wide character straddling the edge becomes a space.
    /// Whole spans are copied; only the one crossing the edge is walked by character
    /// (frames are composed many times a second).
    func prefix(columns: Int) -> ScreenLine {
        var result = ScreenLine()
        var used = 0
        for span in spans {
            guard used < columns else { break }
            let width = span.width
            if used + width <= columns {
                result.spans.append(span)
                used += width
                continue
            }
            var text = ""
            for character in span.text {
                let w = DisplayWidth.of(character)
                if used + w > columns {
                    text += String(repeating: " ", count: columns - used)
                    used = columns
                    break
                }
                text.append(character)
                used += w
            }
            if !text.isEmpty { result.append(text, span.style) }
        }
        return result
    }

    /// Everything from column `start` on; a wide character straddling it becomes a space.
    func suffix(fromColumn start: Int) -> ScreenLine {
        var result = ScreenLine()
        var used = 0
        for span in spans {
            let width = span.width
            if used >= start {
                result.spans.append(span)
                used += width
                continue
            }
            if used + width <= start {
                used += width
                continue
            }
            var text = ""
            for character in span.text {
                let w = DisplayWidth.of(character)
                if used >= start {
                    text.append(character)
                } else if used + w > start {
                    text += String(repeating: " ", count: used + w - start)
                }
                used += w
            }
            if !text.isEmpty { result.append(text, span.style) }
        }
        return result
    }
}
