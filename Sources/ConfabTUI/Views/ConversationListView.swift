import ConfabModel

/// The left pane: a heading, then two-line rows from `top`, or how to start when empty.
struct ConversationListView {
    static let emptyTitle = "No conversations yet"
    static let emptyHints = ["Press Ctrl+K to start one,", "or run: confab new NAME"]
    static let headerHeight = 2

    let conversations: [ConversationSummary]
    let selected: ConversationID?
    let top: Int
    let isFocused: Bool
    let showsArchived: Bool
    let width: Int
    let height: Int
    let context: RenderContext

    /// How many rows fit under the heading.
    static func capacity(height: Int) -> Int {
        max(1, (height - headerHeight) / ConversationRow.height)
    }

    func lines() -> [ScreenLine] {
        var lines: [ScreenLine] = []
        var heading = ScreenLine(showsArchived ? " All conversations" : " Conversations", Palette.title)
        if showsArchived { heading.append(" (archived shown)", Palette.dim) }
        lines.append(heading.fitted(to: width))
        lines.append(.rule(width: width))
        if conversations.isEmpty {
            lines += emptyState()
        } else {
            for summary in conversations.dropFirst(top).prefix(Self.capacity(height: height)) {
                let row = ConversationRow(
                    summary: summary, width: width, isSelected: summary.id == selected, isFocused: isFocused,
                    context: context)
                lines += row.lines()
            }
        }
        return Self.exactly(height, lines, width: width)
    }

    private func emptyState() -> [ScreenLine] {
        let title = showsArchived ? "No conversations here" : Self.emptyTitle
        var lines = [ScreenLine(), ScreenLine.centered(ScreenLine(title, Palette.bold), width: width)]
        lines += Self.emptyHints.map { ScreenLine.centered(ScreenLine($0, Palette.dim), width: width) }
        return lines
    }

    /// `lines` cut or padded with blank lines to exactly `height` lines.
    static func exactly(_ height: Int, _ lines: [ScreenLine], width: Int) -> [ScreenLine] {
        var result = Array(lines.prefix(max(0, height)))
        while result.count < height { result.append(ScreenLine().fitted(to: width)) }
        return result
    }
}
