import ConfabModel
import Foundation

/// The messages of the open chat in display order, with a date separator wherever the day
/// changes, cut to the rows on screen at the scroll position. When scrolled up with news
/// below, the last row says how many new messages are waiting.
struct MessageListView {
    /// All lines of the loaded messages, and which lines each message took (in the
    /// order of `messages`).
    struct Content {
        var lines: [ScreenLine] = []
        var ranges: [Range<Int>] = []
    }

    let messages: [ChatMessage]
    let width: Int
    let isGroup: Bool
    let highlight: String?
    let context: RenderContext
    var metrics = MessageMetrics()
    var fileRecipients: [String: FileRecipients] = [:]
    var recipientCount = 1

    private var parameters: MessageMetrics.Parameters {
        MessageMetrics.Parameters(width: width, isGroup: isGroup, calendar: context.calendar)
    }

    /// Each message's date separator lines (0, 1, or 2 with the blank line before a new
    /// day) and bubble lines.
    private func blocks() -> [(separator: Int, bubble: Int)] {
        let lookup = metrics.lookup(for: parameters)
        var previousDay: Date?
        return messages.map { message in
            let day = lookup.day(of: message)
            defer { previousDay = day }
            let separator = day == previousDay ? 0 : (previousDay == nil ? 1 : 2)
            return (separator, lookup.height(of: message))
        }
    }

    /// How many lines the messages take, and where each one is, without drawing them.
    func measure() -> (total: Int, ranges: [Range<Int>]) {
        var total = 0
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(messages.count)
        for block in blocks() {
            ranges.append(total + block.separator..<total + block.separator + block.bubble)
            total += block.separator + block.bubble
        }
        return (total, ranges)
    }

    /// The lines of every message; with `window`, only the lines in it are drawn (the
    /// rest are blank) so a long history costs little beyond measuring it.
    func content(window: Range<Int>? = nil) -> Content {
        var content = Content()
        for (message, block) in zip(messages, blocks()) {
            let start = content.lines.count
            let end = start + block.separator + block.bubble
            if let window, !(start..<end).overlaps(window) {
                content.lines += Array(repeating: ScreenLine(), count: end - start)
            } else {
                if block.separator == 2 { content.lines.append(ScreenLine()) }
                if block.separator > 0 { content.lines.append(separator(message.sentAt)) }
                let bubble = MessageBubble(
                    message: message, width: width, showsAuthor: isGroup, isHighlighted: message.id == highlight,
                    context: context, recipients: fileRecipients[message.id], recipientCount: recipientCount)
                content.lines += bubble.lines()
            }
            content.ranges.append(start + block.separator..<end)
        }
        return content
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
