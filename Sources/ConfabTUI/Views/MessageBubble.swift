import ConfabModel

/// One message as lines: mine against the right edge, theirs against the left; in a group
/// their name above; then the time (and for mine, the delivery status) under the bubble.
///
///     Bob
///      Are you coming tonight?
///     10:31 AM
///                                  Sure, at 8.
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

    /// Bubbles take at most three quarters of the pane, so the sides stay apparent.
    /// The text as it wraps inside the bubble.
    func rows() -> [String] {
        Self.rows(of: message, width: width, fileState: fileState)
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
        let textWidth = max(1, max(6, width * 3 / 4) - 2)
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
        rows(of: message, width: width).count + (showsAuthor && !message.isMine ? 1 : 0) + 1
    }

    func lines() -> [ScreenLine] {
        let rows = rows()
        let bodyStyle: TextStyle
        if message.text == nil {
            bodyStyle = Palette.undecryptable
        } else {
            bodyStyle = message.isMine ? Palette.myBubble : Palette.theirBubble
        }
        let style = isHighlighted ? Palette.highlight : bodyStyle
        let innerWidth = rows.map { DisplayWidth.of($0) }.max() ?? 0
        var lines: [ScreenLine] = []
        if showsAuthor, !message.isMine {
            lines.append(place(ScreenLine(TextSanitizer.line(message.authorName), Palette.author)))
        }
        for row in rows {
            let padded = " " + row + String(repeating: " ", count: innerWidth - DisplayWidth.of(row)) + " "
            lines.append(place(ScreenLine(padded, style)))
        }
        lines.append(place(meta()))
        return lines
    }

    private func meta() -> ScreenLine {
        var line = ScreenLine(context.timestamps.time(message.sentAt), Palette.meta)
        if message.editedAt != nil, !message.isDeleted { line.append("  edited", Palette.meta) }
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
