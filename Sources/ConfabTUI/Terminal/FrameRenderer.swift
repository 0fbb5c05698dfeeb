/// Turns frames into the bytes that draw them, redrawing only the rows that changed since
/// the previous frame. Pure: the caller writes the bytes (and calls `invalidate()` when
/// the screen may have been disturbed, e.g. after a resize or returning from a suspend).
public struct FrameRenderer: Sendable {
    /// False under `NO_COLOR`: colours are dropped, bold, dim, italic, underline and
    /// reverse kept.
    public let colors: Bool
    private var previous: Frame?

    public init(colors: Bool = true) {
        self.colors = colors
    }

    /// The next frame is drawn in full, on a cleared screen.
    public mutating func invalidate() {
        previous = nil
    }

    /// The bytes that turn the previous frame on screen into `frame`: empty when nothing
    /// changed.
    public mutating func render(_ frame: Frame) -> [UInt8] {
        defer { previous = frame }
        let rows: [Int]
        let full: Bool
        if let previous, previous.width == frame.width, previous.height == frame.height {
            full = false
            rows = frame.lines.indices.filter { frame.lines[$0] != previous.lines[$0] }
            if rows.isEmpty {
                return previous.cursor == frame.cursor ? [] : Self.cursor(frame)
            }
        } else {
            full = true
            rows = Array(frame.lines.indices)
        }

        var output = EscapeSequence.hideCursor
        if full {
            output += EscapeSequence.resetStyle
            output += EscapeSequence.clearScreen
        }
        for row in rows {
            output += EscapeSequence.moveCursor(row: row, column: 0)
            draw(frame.lines[row], into: &output)
        }
        if frame.cursor != nil {
            output += Self.cursor(frame)
        }
        return output
    }

    /// Every row starts and ends with the default style, so rows can be drawn in any
    /// order and any subset.
    private func draw(_ line: ScreenLine, into output: inout [UInt8]) {
        var current = TextStyle.plain
        for span in line.spans {
            let style = colors ? span.style : span.style.withoutColor
            if style != current {
                output += SGR.sequence(for: style)
                current = style
            }
            // Views never put control characters in spans; should one slip through from
            // network text, dropping it keeps it from acting on the terminal, and keeps
            // the row's width (a control character takes no column).
            for scalar in span.text.unicodeScalars where scalar.properties.generalCategory != .control {
                output.append(contentsOf: scalar.utf8)
            }
        }
        if current != .plain {
            output += EscapeSequence.resetStyle
        }
    }

    private static func cursor(_ frame: Frame) -> [UInt8] {
        guard let cursor = frame.cursor else { return EscapeSequence.hideCursor }
        let row = min(max(cursor.row, 0), max(frame.height - 1, 0))
        let column = min(max(cursor.column, 0), max(frame.width - 1, 0))
        return EscapeSequence.moveCursor(row: row, column: column) + EscapeSequence.showCursor
    }
}
