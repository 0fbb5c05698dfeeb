import ConfabModel

/// One conversation in the list, two lines:
///
///     📌 # Weekend plans           10:30 AM
///        You: Hike on Saturday?          ✓
///
/// A pin mark, a topic badge when the thread has a title, the name (bold when unread), the
/// time of the last activity; then the last message's preview and the unread badge, or the
/// status of my own last message.
struct ConversationRow {
    static let height = 2
    static let pinMark = "📌"
    static let topicBadge = "#"
    static let noMessages = "No messages yet"

    let summary: ConversationSummary
    let width: Int
    let isSelected: Bool
    let isFocused: Bool
    let context: RenderContext

    func lines() -> [ScreenLine] {
        var lines = [firstLine(), secondLine()]
        if isSelected {
            let selection = isFocused ? Palette.selected : Palette.selectedUnfocused
            lines = lines.map { line in
                line.restyled {
                    $0.reverse = true
                    $0.dim = $0.dim || selection.dim
                }
            }
        }
        return lines
    }

    private var isUnread: Bool { summary.badgeCount > 0 }

    /// The title or the other people's names; a thread with nobody else is mine alone.
    static func name(_ summary: ConversationSummary) -> String {
        let name = TextSanitizer.line(summary.displayName)
        return name.isEmpty ? "Only you" : name
    }

    /// Counts past 999 would crowd the preview out; the exact number matters less then.
    static func badge(_ count: Int) -> String {
        count > 999 ? "999+" : String(count)
    }

    private func firstLine() -> ScreenLine {
        var left = ScreenLine()
        left.append(summary.isPinned ? Self.pinMark : "  ", Palette.pin)
        left.append(" ")
        // A room's title is its name with its own `#` (Protocol.md §18): no second badge.
        if let title = summary.title, !title.isEmpty, !title.hasPrefix(Self.topicBadge) {
            left.append(Self.topicBadge, Palette.topicBadge)
            left.append(" ")
        }
        left.append(Self.name(summary), isUnread ? Palette.unreadName : Palette.plain)
        if summary.isMuted { left.append(" (muted)", Palette.muted) }
        if summary.isArchived { left.append(" (archived)", Palette.muted) }
        let time = context.timestamps.short(summary.lastActivityAt, now: context.now)
        var right = ScreenLine(" " + time, isUnread ? Palette.bold : Palette.dim)
        right.append(" ")
        return .justified(left, right, width: width)
    }

    private func secondLine() -> ScreenLine {
        var left = ScreenLine("   ")
        if let last = summary.lastMessage {
            let text = Preview.line(TextSanitizer.line(last.text), mine: last.isMine, limit: 200)
            left.append(text, isUnread ? Palette.plain : Palette.dim)
        } else {
            left.append(Self.noMessages, Palette.placeholder)
        }
        var right = ScreenLine()
        if isUnread {
            right.append(" ")
            right.append(" \(Self.badge(summary.badgeCount)) ", context.badge)
        } else if let status = summary.lastMessage?.status {
            right.append(" ")
            right.append(StatusMark.short(status), StatusMark.style(status))
        }
        if !right.spans.isEmpty { right.append(" ") }
        return .justified(left, right, width: width)
    }
}
