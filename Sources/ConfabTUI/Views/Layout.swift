/// Where the panes go. Wide terminals show the list and the chat side by side; under 80
/// columns one pane fills the screen (the list, or the chat with Esc back to the list).
struct Layout: Equatable, Sendable {
    enum Mode: Equatable, Sendable {
        case wide
        case narrow
    }

    static let narrowBelow = 80
    /// Lines of the chat header (names, then a rule).
    static let headerHeight = 2
    static let maxInputLines = 5

    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }

    var mode: Mode { width < Self.narrowBelow ? .narrow : .wide }

    /// Rows above the status bar.
    var bodyHeight: Int { max(0, height - 1) }

    /// The list's width beside the chat: about a third, within bounds that keep names
    /// readable and leave the chat most of the room.
    var listWidth: Int {
        switch mode {
        case .wide: return min(40, max(26, width * 3 / 10))
        case .narrow: return width
        }
    }

    /// The chat pane's left column and width (wide: right of the list and its divider).
    var chatLeft: Int { mode == .wide ? listWidth + 1 : 0 }
    var chatWidth: Int { max(0, width - chatLeft) }

    /// Rows for messages when the input bar takes `inputLines` lines of text (plus its rule).
    func messageRows(inputLines: Int) -> Int {
        max(0, bodyHeight - Self.headerHeight - 1 - inputLines)
    }
}
