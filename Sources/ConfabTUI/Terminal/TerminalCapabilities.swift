/// What the terminal can do, which decides between the full-screen chat and plain lines.
public struct TerminalCapabilities: Hashable, Sendable {
    /// Both ends are a terminal that understands cursor movement.
    public var fullScreen: Bool
    /// Colours are wanted: the output is a terminal and `NO_COLOR` is not set.
    public var colors: Bool

    public init(fullScreen: Bool, colors: Bool) {
        self.fullScreen = fullScreen
        self.colors = colors
    }

    /// `NO_COLOR` counts when set to anything but the empty string (no-color.org), as in
    /// the command-line output.
    public init(inputIsTerminal: Bool, outputIsTerminal: Bool, environment: [String: String]) {
        let term = environment["TERM"] ?? ""
        let capableTerm = !term.isEmpty && term != "dumb"
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        self.init(
            fullScreen: inputIsTerminal && outputIsTerminal && capableTerm,
            colors: outputIsTerminal && capableTerm && !noColor
        )
    }
}
