import ConfabModel

/// One row of the screen, as styled spans. A frame's lines are exactly its width wide, so
/// the renderer can compare rows and redraw only those that changed.
public struct ScreenLine: Hashable, Sendable {
    public var spans: [Span]

    public init(_ spans: [Span] = []) {
        self.spans = spans
    }

    public init(_ text: String, _ style: TextStyle = .plain) {
        self.spans = [Span(text, style)]
    }

    public var width: Int { spans.reduce(0) { $0 + $1.width } }

    /// The text without styles: what a test or a screen reader sees.
    public var text: String { spans.map(\.text).joined() }

    public mutating func append(_ text: String, _ style: TextStyle = .plain) {
        spans.append(Span(text, style))
    }

    public mutating func append(_ line: ScreenLine) {
        spans += line.spans
    }

    /// Cut to at most `width` columns ("…" marks a cut) and padded with spaces to exactly
    /// `width`; the padding takes the style of `fill`.
    public func fitted(to width: Int, fill: TextStyle = .plain) -> ScreenLine {
        var result: [Span] = []
        var used = 0
        for span in spans {
            let spanWidth = span.width
            if used + spanWidth <= width {
                result.append(span)
                used += spanWidth
                continue
            }
            let cut = DisplayWidth.truncate(span.text, to: width - used)
            result.append(Span(cut, span.style))
            used += DisplayWidth.of(cut)
            break
        }
        if used < width { result.append(Span(String(repeating: " ", count: width - used), fill)) }
        return ScreenLine(result.filter { !$0.text.isEmpty })
    }
}
