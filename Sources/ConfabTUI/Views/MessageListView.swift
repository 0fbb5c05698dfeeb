import ConfabModel
import Foundation

/// The messages of the open chat in display order, with a date separator wherever the day
/// changes, cut to the rows on screen at the scroll position. When scrolled up with news
/// below, the last row says how many new messages are waiting.
struct MessageListView {
    /// All lines of the loaded messages, and which lines each message took.
    struct Content {
        var lines: [ScreenLine] = []
        var ranges: [String: Range<Int>] = [:]
    }

    let messages: [ChatMessage]
    let width: Int
    let isGroup: Bool
    let highlight: String?
    let context: RenderContext

    /// The lines of every message; with `window`, only the lines in it are drawn (the
    /// rest are blank) so a long history costs little beyond measuring it.
    func content(window: Range<Int>? = nil) -> Content {
        var content = Content()
        var previousDay: Date?
        for message in messages {
            let day = context.calendar.startOfDay(for: message.sentAt)
            let bubble = MessageBubble(
                message: message, width: width, showsAuthor: isGroup, isHighlighted: message.id == highlight,
                context: context)
            var separatorLines = 0
            if day != previousDay { separatorLines = previousDay == nil ? 1 : 2 }
            let start = content.lines.count
            let height = bubble.height
            let block = start..<start + separatorLines + height
            if let window, !block.overlaps(window) {
                content.lines += Array(repeating: ScreenLine(), count: block.count)
            } else {
                if separatorLines == 2 { content.lines.append(ScreenLine()) }
                if separatorLines > 0 { content.lines.append(separator(message.sentAt)) }
                content.lines += bubble.lines()
            }
            content.ranges[message.id] = start + separatorLines..<block.upperBound
            previousDay = day
        }
        return content
    }

    /// How many lines the messages take, and where each one is, without drawing them.
    func measure() -> (total: Int, ranges: [String: Range<Int>]) {
        let content = content(window: 0..<0)
        return (content.lines.count, content.ranges)
    }

    /// "──── Today ────" across the pane.
    private func separator(_ date: Date) -> ScreenLine {
        let label = " " + context.timestamps.separator(date, now: context.now) + " "
        let side = max(0, (width - DisplayWidth.of(label)) / 2)
        var line = ScreenLine(String(repeating: "─", count: side), Palette.separator)
        line.append(label, Palette.separator)
        line.append(String(repeating: "─", count: max(0, width - side - DisplayWidth.of(label))), Palette.separator)
        return line
    }

    /// The rows on screen: the content lines `scroll` lines up from the bottom, held to the
    /// bottom when they do not fill the pane (new messages come in from below).
    static func visible(
        _ content: Content, rows: Int, scroll: Int, newBelow: Int, width: Int, context: RenderContext
    ) -> [ScreenLine] {
        guard rows > 0 else { return [] }
        let total = content.lines.count
        let scroll = min(max(0, scroll), max(0, total - rows))
        let end = total - scroll
        let start = max(0, end - rows)
        var lines = Array(content.lines[start..<end])
        let blank = ScreenLine().fitted(to: width)
        lines = Array(repeating: blank, count: rows - lines.count) + lines.map { $0.fitted(to: width) }
        if scroll > 0, newBelow > 0 {
            let noun = newBelow == 1 ? "new message" : "new messages"
            let label = ScreenLine(" \(NumberText.grouped(newBelow)) \(noun) ↓ ", context.indicator)
            lines[rows - 1] = .centered(label, width: width)
        }
        return lines
    }

    /// A pane with one line of text in the middle (an empty chat, loading).
    static func centeredMessage(_ text: String, rows: Int, width: Int) -> [ScreenLine] {
        guard rows > 0 else { return [] }
        let blank = ScreenLine().fitted(to: width)
        var lines = Array(repeating: blank, count: rows)
        lines[(rows - 1) / 2] = .centered(ScreenLine(text, Palette.dim), width: width)
        return lines
    }
}
