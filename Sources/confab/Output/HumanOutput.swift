import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

/// Text output for people: aligned to the terminal, relative timestamps, badges. Names,
/// titles and message text come from the network, so each goes through TextSanitizer:
/// one line for names, titles and previews, lines for message bodies.
enum HumanOutput {
    static let timestamps = SmartTimestamp()

    static func label(_ status: DeliveryStatus) -> String {
        switch status {
        case .sending: return "sending…"
        case .sent: return "sent ✓"
        case .delivered: return "delivered ✓✓"
        case .read: return "read ✓✓"
        }
    }

    /// Two lines per conversation:
    ///   📌 Bob · Weekend plans                    10:30 AM
    ///      You: see you at 8 · sending…      (2)  1a2b3c4d
    static func conversationRows(_ list: [ConversationSummary], width: Int, now: Date = Date()) -> [String] {
        list.flatMap { c -> [String] in
            let mark = c.isPinned ? "📌 " : "   "
            let time = timestamps.short(c.lastActivityAt, now: now)
            var name = c.participants.map(participantLabel).joined(separator: ", ")
            if let title = c.title, !title.isEmpty { name += " · \(TextSanitizer.line(title))" }
            if c.isArchived { name += " (archived)" }
            if c.isMuted { name += " (muted)" }
            let nameWidth = max(10, width - DisplayWidth.of(mark) - DisplayWidth.of(time) - 1)
            let line1 = mark + Style.bold(DisplayWidth.pad(name, to: nameWidth)) + " " + Style.dim(time)

            var preview =
                c.lastMessage.map { Preview.line(TextSanitizer.line($0.text), mine: $0.isMine, limit: 200) }
                ?? "No messages yet"
            if let status = c.lastMessage?.status { preview += " · " + label(status) }
            let badge = c.badgeCount > 0 ? " (\(c.badgeCount))" : ""
            let id = " " + c.id.shortHex
            let previewWidth = max(10, width - 3 - DisplayWidth.of(badge) - DisplayWidth.of(id))
            let line2 = "   " + DisplayWidth.pad(preview, to: previewWidth) + Style.badge(badge) + Style.dim(id)
            return [line1, line2]
        }
    }

    /// A participant's name with its trust: "Bob ✓" once verified, "Bob (blocked)".
    static func participantLabel(_ participant: ConversationSummary.Participant) -> String {
        let name = TextSanitizer.line(participant.name)
        switch participant.trust {
        case .verified: return name + " ✓"
        case .blocked: return name + " (blocked)"
        case .unverified: return name
        }
    }

    /// Chat history with date separators, in weechat style:
    ///   ──── Today ────
    ///   10:30 AM  Bob: hi
    ///   10:31 AM  You: hello  (sending…)
    static func historyLines(_ messages: [ChatMessage], width: Int, now: Date = Date()) -> [String] {
        var lines: [String] = []
        var lastDay: Date?
        let calendar = Calendar.current
        for message in messages {
            let day = calendar.startOfDay(for: message.sentAt)
            if day != lastDay {
                let label = " \(timestamps.separator(message.sentAt, now: now)) "
                let side = max(2, (width - DisplayWidth.of(label)) / 2)
                lines.append(
                    Style.dim(String(repeating: "─", count: side) + label + String(repeating: "─", count: side)))
                lastDay = day
            }
            let time = DisplayWidth.pad(timestamps.time(message.sentAt), to: 8)
            let author = TextSanitizer.line(message.authorName)
            let name = message.isMine ? Style.accent(author) : Style.bold(author)
            let status = message.status.map { "  " + Style.dim("(\(label($0)))") } ?? ""
            if let system = message.systemLine {
                lines.append("\(Style.dim(time))  \(Style.dim("* " + TextSanitizer.line(system)))")
                continue
            }
            var body =
                message.isDeleted
                ? [Style.dim(ChatMessage.deletedText)]
                : message.file.map { [$0.summary, Style.dim(message.isMine ? "sent" : $0.stateText)] }
                    ?? message.text.map(TextSanitizer.lines) ?? ["(message could not be decrypted)"]
            if message.editedAt != nil, !message.isDeleted, let lastLine = body.popLast() {
                body.append(lastLine + "  " + Style.dim("(edited)"))
            }
            if let lastLine = body.popLast() { body.append(lastLine + status) }
            // The original a reply answers above its text, the reactions under it.
            if let quote = message.replyTo { body.insert(Style.dim("↪ " + quote.line()), at: 0) }
            if !message.isDeleted, !message.reactions.isEmpty { body.append(reactionsLine(message.reactions)) }
            lines.append("\(Style.dim(time))  \(name): \(body.first ?? "")")
            let indent = String(repeating: " ", count: 10 + DisplayWidth.of(author) + 2)
            for line in body.dropFirst() { lines.append(indent + line) }
        }
        return lines
    }
}

extension HumanOutput {
    /// "👍 2 Alice, Bob · ❤️ 1 Carol" (names came from the network: sanitised).
    static func reactionsLine(_ reactions: [ReactionGroup]) -> String {
        reactions.map { $0.summary() }.joined(separator: " · ")
    }

    /// One line per watch event.
    static func eventLine(_ event: ControlEvent) -> String {
        switch event.event {
        case .message:
            guard let message = event.message else { return "message" }
            let author = TextSanitizer.line(message.authorName)
            // Later lines are indented, so a message cannot start a line that passes for
            // another event.
            let indent = "\n" + String(repeating: " ", count: 10 + DisplayWidth.of(author) + 2)
            let reply =
                message.replyTo.map {
                    " "
                        + Style.dim(
                            "(↪ \(Preview.line(TextSanitizer.line($0.authorName + ": " + ($0.text ?? "…")), mine: false, limit: 40)))"
                        )
                } ?? ""
            return "\(Style.dim(String(message.conversation.prefix(8))))  \(Style.bold(author))\(reply): "
                + (message.text.map { TextSanitizer.lines($0).joined(separator: indent) } ?? "(could not be decrypted)")
        case .edited, .deleted:
            guard let message = event.message else { return event.event.rawValue }
            let author = TextSanitizer.line(message.authorName)
            let indent = "\n" + String(repeating: " ", count: 10 + DisplayWidth.of(author) + 2)
            let what =
                event.event == .deleted
                ? Style.dim(ChatMessage.deletedText)
                : (message.text.map { TextSanitizer.lines($0).joined(separator: indent) } ?? "(could not be decrypted)")
                    + "  " + Style.dim("(edited)")
            return "\(Style.dim(String(message.conversation.prefix(8))))  \(Style.bold(author)) #\(message.seq): "
                + what
        case .reaction:
            guard let message = event.message, let reaction = event.reaction else { return "reaction" }
            let emoji = TextSanitizer.line(reaction.emoji)
            let what = reaction.removed ? "took back \(emoji) from" : "reacted \(emoji) to"
            let text =
                message.text.map { Preview.line(TextSanitizer.line($0), mine: false, limit: 40) } ?? "#\(message.seq)"
            return
                "\(Style.dim(String(message.conversation.prefix(8))))  \(Style.bold(TextSanitizer.line(reaction.reactorName))) "
                + "\(what) \(TextSanitizer.line(message.authorName)): \(text)"
        case .members:
            guard let message = event.message else { return "members" }
            return "\(Style.dim(String(message.conversation.prefix(8))))  * "
                + TextSanitizer.line(message.system ?? "the members changed")
        case .status:
            return "\(Style.dim(event.conversation?.shortHex ?? ""))  your message #\(event.seq ?? 0) is "
                + (event.status.map(label) ?? "?")
        case .peerOnline:
            return "\(peerName(event)) is online"
                + (event.peer?.address.map { " at \(TextSanitizer.line($0))" } ?? "")
        case .peerOffline:
            return "\(peerName(event)) went offline"
        case .changed:
            return "\(Style.dim(event.conversation?.shortHex ?? "*"))  changed"
        case .link:
            guard let link = event.link else { return "link" }
            let device = "\(TextSanitizer.line(link.name ?? "?")) (\(link.device?.shortHex ?? "?"))"
            switch link.state {
            case .words:
                return "link offer \(link.id): \(device) asks to be linked; words: "
                    + TextSanitizer.line((link.words ?? []).joined(separator: " "))
            case .linked: return "link offer \(link.id): linked \(device)"
            case .failed: return "link offer \(link.id): \(TextSanitizer.line(link.message ?? "nothing was linked"))"
            }
        case .typing:
            let who = TextSanitizer.line(event.authorName ?? event.author?.shortHex ?? "?")
            return "\(Style.dim(event.conversation?.shortHex ?? ""))  \(who) "
                + (event.active == true ? "is typing…" : "stopped typing")
        case .file:
            guard let file = event.file else { return "file" }
            let name = file.name.map(TextSanitizer.line) ?? "a file"
            let state =
                switch file.state {
                case "fetching":
                    "\(ProgressBar.text(Double(file.held) / Double(max(file.size, 1)))) \(ByteSize.format(Int(clamping: file.held))) of \(ByteSize.format(Int(clamping: file.size)))"
                case "complete": "received — confab save \(file.id.prefix(12))"
                default: file.state + (file.problem.map { ": " + TextSanitizer.line($0) } ?? "")
                }
            return "\(Style.dim(String(file.conversation.prefix(8))))  📎 \(name) \(state)"
        case .filePeer:
            let held = ByteSize.format(Int(clamping: event.held ?? 0))
            return "\(Style.dim(event.conversation?.shortHex ?? ""))  your file #\(event.seq ?? 0): "
                + (event.complete == true
                    ? "\(event.by?.shortHex ?? "?") holds it whole" : "\(event.by?.shortHex ?? "?") holds \(held)")
        }
    }

    private static func peerName(_ event: ControlEvent) -> String {
        event.peer.map { TextSanitizer.line($0.name) } ?? "?"
    }
}
