/// How a run of text looks. Colours are the 16 ANSI ones so the user's terminal theme
/// decides the actual shades; `NO_COLOR` drops colours but keeps bold, dim and reverse,
/// which carry meaning (selection, unread) without colour.
public struct TextStyle: Hashable, Sendable {
    public enum Color: UInt8, Hashable, Sendable {
        case black = 0, red, green, yellow, blue, magenta, cyan, white
        case brightBlack, brightRed, brightGreen, brightYellow, brightBlue, brightMagenta, brightCyan, brightWhite
    }

    public var foreground: Color?
    public var background: Color?
    public var bold = false
    public var dim = false
    public var italic = false
    public var underline = false
    public var reverse = false

    public init(
        foreground: Color? = nil, background: Color? = nil, bold: Bool = false, dim: Bool = false,
        italic: Bool = false, underline: Bool = false, reverse: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.italic = italic
        self.underline = underline
        self.reverse = reverse
    }

    public static let plain = TextStyle()

    /// The same style without colours, for `NO_COLOR`.
    public var withoutColor: TextStyle {
        var copy = self
        copy.foreground = nil
        copy.background = nil
        return copy
    }
}
