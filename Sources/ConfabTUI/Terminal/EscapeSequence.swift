/// The control sequences the terminal layer writes (xterm's, which every terminal in use
/// understands).
enum EscapeSequence {
    static let enterAlternateScreen = bytes("\u{1B}[?1049h")
    static let leaveAlternateScreen = bytes("\u{1B}[?1049l")
    static let enableBracketedPaste = bytes("\u{1B}[?2004h")
    static let disableBracketedPaste = bytes("\u{1B}[?2004l")
    /// Without autowrap, a character the terminal measures wider than we did, or the last
    /// column of the last row, can never scroll the screen or spill into the next row.
    static let disableAutowrap = bytes("\u{1B}[?7l")
    static let enableAutowrap = bytes("\u{1B}[?7h")
    static let hideCursor = bytes("\u{1B}[?25l")
    static let showCursor = bytes("\u{1B}[?25h")
    static let clearScreen = bytes("\u{1B}[2J")
    static let resetStyle = bytes("\u{1B}[0m")

    /// Moves the cursor to a zero-based row and column.
    static func moveCursor(row: Int, column: Int) -> [UInt8] {
        bytes("\u{1B}[\(row + 1);\(column + 1)H")
    }

    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
}

extension EscapeSequence {
    static let enterFullScreen = enterAlternateScreen + enableBracketedPaste + disableAutowrap + hideCursor
    /// Undoes `enterFullScreen` and any style a frame left set, in the reverse order.
    static let leaveFullScreen =
        resetStyle + disableBracketedPaste + enableAutowrap + showCursor + leaveAlternateScreen
}
