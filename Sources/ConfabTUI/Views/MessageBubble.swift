import ConfabModel

/// One message as lines: mine against the right edge, theirs against the left; in a group
/// their name above; a reply's quote of its original on the bubble's first row; the
/// reactions, then the time (and for mine, the delivery status) under the bubble.
///
///     Bob
///      Are you coming tonight?
///     👍 1 You
///     10:31 AM
///                             ↪ Bob: Are you coming…
///                             Sure, at 8.
///                             10:32 AM  sent ✓
struct MessageBubble {
    static let undecryptable = "(message could not be decrypted)"

    let message: ChatMessage
    let width: Int
    let showsAuthor: Bool
    let isHighlighted: Bool
    let context: RenderContext
    /// For my file: how far its recipients got.
    var recipients: FileRecipients? = nil
    var recipientCount = 1

    /// The text as it wraps inside the bubble.
    func rows() -> [String] {
        Self.rows(of: message, width: width, fileState: fileState)
    }

    /// Bubbles take at most three quarters of the pane, so the sides stay apparent.
    private static func textWidth(_ width: Int) -> Int { max(1, max(6, width * 3 / 4) - 2) }

    /// The reply's quote, cut to one row of the bubble.
    static func quoteRow(of message: ChatMessage, width: Int) -> String? {
        guard let quote = message.replyTo else { return nil }
        return cut("↪ " + quote.line(limit: 200), to: textWidth(width))
    }

    /// "👍 2 Alice, Bob · ❤️ 1 Carol", wrapped under the bubble.
    static func reactionRows(of message: ChatMessage, width: Int) -> [String] {
        guard !message.isDeleted, !message.reactions.isEmpty else { return [] }
        return TextWrap.wrap(message.reactions.map { $0.summary() }.joined(separator: " · "), width: textWidth(width))
    }

    /// `text` in at most `width` columns, with "…" when cut.
    private static func cut(_ text: String, to width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        var kept = ""
        var used = 0
        for character in text {
            let columns = DisplayWidth.of(character)
            guard used + columns <= width - 1 else { break }
            kept.append(character)
            used += columns
        }
        return kept + "…"
    }

    /// A file's second line: how much of it is here, or for mine how far recipients got.
    private var fileState: String? {
        guard let file = message.file, !message.isDeleted else { return nil }
        if message.isMine { return (recipients ?? FileRecipients()).text(size: file.size, count: recipientCount) }
        return file.stateText(save: "Ctrl+E, Enter")
    }

    /// A file takes its summary's rows and exactly one more, whatever its state says, so
    /// progress never changes how tall it is.
    private static func rows(of message: ChatMessage, width: Int, fileState: String? = nil) -> [String] {
        let textWidth = textWidth(width)
        if let system = message.systemLine {
            return TextWrap.wrap(TextSanitizer.line(system), width: max(1, width - 2))
        }
        if message.isDeleted { return TextWrap.wrap(ChatMessage.deletedText, width: textWidth) }
        if let file = message.file {
            let state = fileState ?? ""
            return TextWrap.wrap(file.summary, width: textWidth)
                + [DisplayWidth.truncate(state, to: textWidth)]
        }
        guard let text = message.text else { return TextWrap.wrap(Self.undecryptable, width: textWidth) }
        return TextWrap.wrap(lines: TextSanitizer.lines(text), width: textWidth)
    }

    /// Lines a bubble takes, without drawing it (times are not formatted).
    static func height(of message: ChatMessage, width: Int, showsAuthor: Bool) -> Int {
        if message.isSystemLine { return rows(of: message, width: width).count }
        return rows(of: message, width: width).count + (quoteRow(of: message, width: width) == nil ? 0 : 1)
            + reactionRows(of: message, width: width).count + (showsAuthor && !message.isMine ? 1 : 0) + 1
    }

    func lines() -> [ScreenLine] {
        let rows = rows()
        // A system line (a change of members) is no one's bubble: centred, dim, no time.
        if message.isSystemLine {
            return rows.map { row in
                let margin = max(0, (width - DisplayWidth.of(row)) / 2)
                return ScreenLine(String(repeating: " ", count: margin) + row, Palette.meta).fitted(to: width)
            }
        }
        let bodyStyle: TextStyle
        if message.text == nil {
            bodyStyle = Palette.undecryptable
        } else {
            bodyStyle = message.isMine ? Palette.myBubble : Palette.theirBubble
        }
        let style = isHighlighted ? Palette.highlight : bodyStyle
        let quote = Self.quoteRow(of: message, width: width)
        let innerWidth = (rows + [quote ?? ""]).map { DisplayWidth.of($0) }.max() ?? 0
        var lines: [ScreenLine] = []
        if showsAuthor, !message.isMine {
            lines.append(place(ScreenLine(TextSanitizer.line(message.authorName), Palette.author)))
        }
        func padded(_ row: String) -> String {
            " " + row + String(repeating: " ", count: innerWidth - DisplayWidth.of(row)) + " "
        }
        if let quote {
            // Set apart from the text by italics, which survive NO_COLOR.
            var quoteStyle = style
            quoteStyle.italic = true
            lines.append(place(ScreenLine(padded(quote), quoteStyle)))
        }
        for row in rows { lines.append(place(ScreenLine(padded(row), style))) }
        for row in Self.reactionRows(of: message, width: width) {
            lines.append(place(ScreenLine(row, Palette.reactions)))
        }
        lines.append(place(meta()))
        return lines
    }

    private func meta() -> ScreenLine {
        var line = ScreenLine(context.timestamps.time(message.sentAt), Palette.meta)
        if message.editedAt != nil, !message.isDeleted { line.append("  edited", Palette.meta) }
        if message.mentionsMe { line.append("  mentions you", Palette.mention) }
        if message.isMine, let status = message.status {
            line.append("  ")
            line.append(StatusMark.full(status), StatusMark.style(status))
        }
        return line
    }

    /// Against the left edge (theirs) or the right edge (mine), one column in.
    private func place(_ content: ScreenLine) -> ScreenLine {
        if message.isMine { return .rightAligned(content, width: width, margin: 1) }
        var line = ScreenLine(" ")
        line.append(content)
        return line.fitted(to: width)
    }
}
