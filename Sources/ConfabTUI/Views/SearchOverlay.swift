import ConfabModel
import ConfabStore
import Foundation

/// `/` from the list: a query field and the hits (conversations by name or title, then
/// messages); Enter opens the selected one at its message.
struct SearchOverlay {
    static let title = "Search"
    static let prompt = "Search: "
    static let hint = "Type to search names, titles and messages"
    static let searching = "Searching…"

    let panel: SearchPanel
    let screenWidth: Int
    let screenHeight: Int
    let context: RenderContext

    /// Hit rows that fit under the field and its rule.
    private var resultRows: Int { max(1, screenHeight - 6) }

    func box() -> (box: OverlayBox, cursor: Frame.Cursor) {
        let width = min(72, max(20, screenWidth - 6))
        var content: [ScreenLine] = []
        var field = ScreenLine(Self.prompt, Palette.bold)
        field.append(TextSanitizer.line(panel.query.text))
        content.append(field)
        content.append(.rule(width: width))
        let query = panel.query.text
        if query.trimmingCharacters(in: .whitespaces).isEmpty {
            content.append(ScreenLine(Self.hint, Palette.dim))
        } else if panel.answered != query {
            content.append(ScreenLine(Self.searching, Palette.dim))
        } else if panel.hits.isEmpty {
            content.append(ScreenLine("No matches for “\(TextSanitizer.line(query))”", Palette.dim))
        } else {
            let first = max(0, panel.selected - resultRows + 1)
            for (index, hit) in panel.hits.enumerated().dropFirst(first).prefix(resultRows) {
                var line = row(hit).fitted(to: width)
                if index == panel.selected { line = line.restyled { $0.reverse = true } }
                content.append(line)
            }
        }
        let box = OverlayBox(
            title: Self.title, content: content, preferredWidth: width, screenWidth: screenWidth,
            screenHeight: screenHeight)
        let before = String(panel.query.characters.prefix(panel.query.cursor))
        let column = DisplayWidth.of(Self.prompt) + DisplayWidth.of(TextSanitizer.line(before))
        return (box, box.screenPosition(contentRow: 0, column: column))
    }

    private func row(_ hit: SearchHit) -> ScreenLine {
        var line = ScreenLine(ConversationRow.name(hit.conversation), Palette.bold)
        if let message = hit.message {
            line.append("  " + context.timestamps.short(message.sentAt, now: context.now), Palette.dim)
            line.append("  ")
            let author = message.isMine ? "You" : TextSanitizer.line(message.authorName)
            line.append(author + ": ", Palette.dim)
            line.append(Self.snippet(hit.snippet ?? message.text ?? MessageBubble.undecryptable))
        } else {
            line.append("  conversation", Palette.dim)
        }
        return line
    }

    /// The store marks matches «like this»; they are drawn highlighted instead.
    static func snippet(_ text: String) -> ScreenLine {
        var line = ScreenLine()
        var inside = false
        var run = ""
        for character in TextSanitizer.line(text) {
            if character == "«" || character == "»" {
                if !run.isEmpty { line.append(run, inside ? Palette.match : Palette.plain) }
                run = ""
                inside = character == "«"
            } else {
                run.append(character)
            }
        }
        if !run.isEmpty { line.append(run, inside ? Palette.match : Palette.plain) }
        return line
    }
}
