import ConfabModel

/// Word wrapping by display columns, so wide characters never push a line past its width.
enum TextWrap {
    /// Breaks one line (no newlines) into lines of at most `width` columns, at spaces where
    /// possible and inside words that are longer than a line. An empty line stays one line.
    static func wrap(_ line: String, width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        var current: [Character] = []
        var currentWidth = 0
        var lastSpace: Int?
        for character in line {
            let characterWidth = DisplayWidth.of(character)
            if character == " " {
                if currentWidth + characterWidth > width {
                    // The space that would overflow is the break itself.
                    lines.append(String(current))
                    current = []
                    currentWidth = 0
                    lastSpace = nil
                    continue
                }
                lastSpace = current.count
            }
            while currentWidth + characterWidth > width, !current.isEmpty {
                if let space = lastSpace, space > 0 {
                    lines.append(String(current[..<space]))
                    current = Array(current[(space + 1)...])
                } else {
                    lines.append(String(current))
                    current = []
                }
                currentWidth = DisplayWidth.of(String(current))
                lastSpace = nil
            }
            current.append(character)
            currentWidth += characterWidth
        }
        lines.append(String(current))
        return lines
    }

    /// Every line of `lines` wrapped, in order.
    static func wrap(lines: [String], width: Int) -> [String] {
        lines.flatMap { wrap($0, width: width) }
    }
}
