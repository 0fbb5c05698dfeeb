import ConfabClient
import ConfabModel

/// The top of the chat pane: the title or the names, each person's verified mark and
/// whether they are online, then a rule — which says who is typing, where no long list of
/// names can push it off the line.
struct ChatHeaderView {
    static let verifiedMark = "✔"

    let conversation: ConversationID
    let summary: ConversationSummary?
    let peers: [PeerPresence]
    let verified: Set<NodeID>
    /// Who is typing, in the order they started.
    var typing: [String] = []
    let width: Int

    func lines() -> [ScreenLine] {
        [headline().fitted(to: width), rule()]
    }

    /// "Bob is typing…", "Bob and Carol are typing…", "3 people are typing…".
    static func typingText(_ names: [String]) -> String? {
        let names = names.map { TextSanitizer.line($0) }
        switch names.count {
        case 0: return nil
        case 1: return "\(names[0]) is typing…"
        case 2: return "\(names[0]) and \(names[1]) are typing…"
        default: return "\(names.count) people are typing…"
        }
    }

    private func rule() -> ScreenLine {
        guard let text = Self.typingText(typing) else { return .rule(width: width) }
        var line = ScreenLine("─ ", Palette.rule)
        line.append(text, Palette.typing)
        line.append(" " + String(repeating: "─", count: max(0, width)), Palette.rule)
        return line.fitted(to: width)
    }

    private func headline() -> ScreenLine {
        var line = ScreenLine(" ")
        guard let summary else {
            line.append("Conversation \(conversation.shortHex)", Palette.title)
            return line
        }
        let people = summary.participants
        // First, so that no cut of a long line hides it: nothing written here reaches them.
        if summary.isFormerMember { line.append("⚠ you are no longer a member  ", Palette.warning) }
        if let title = summary.title, !title.isEmpty {
            if !title.hasPrefix(ConversationRow.topicBadge) {
                line.append(ConversationRow.topicBadge + " ", Palette.topicBadge)
            }
            line.append(TextSanitizer.line(title), Palette.title)
            if !people.isEmpty { line.append("  ") }
        }
        if people.isEmpty, summary.title?.isEmpty ?? true {
            line.append("Only you", Palette.title)
        }
        let isPair = people.count == 1
        for (index, person) in people.enumerated() {
            if index > 0 { line.append(", ", Palette.dim) }
            let hasTitle = !(summary.title?.isEmpty ?? true)
            line.append(TextSanitizer.line(person.name), hasTitle ? Palette.plain : Palette.title)
            if verified.contains(person.id) {
                line.append(" " + Self.verifiedMark + (isPair ? " verified" : ""), Palette.verified)
            }
            let online = peers.first { $0.id == person.id }?.online ?? false
            let word = online ? "online" : "offline"
            line.append(isPair ? " · " + word : " (\(word))", online ? Palette.online : Palette.offline)
        }
        if summary.isMuted { line.append("  (muted)", Palette.muted) }
        // What a peer's lie left behind (Protocol.md §4.5, §7.1): said where it is read,
        // ahead of anything the line has to cut.
        if summary.keyProblem { line.append("  ⚠ cannot be read here (wrong key)", Palette.warning) }
        // Said where the cost is felt: what this conversation's people cannot see or send.
        for person in people {
            if let notice = peers.first(where: { $0.id == person.id })?.protocolNotice {
                line.append("  ⚠ \(TextSanitizer.line(notice))", Palette.warning)
            }
        }
        for author in summary.forkedAuthors {
            let name = summary.participants.first { $0.id == author }?.name ?? author.shortHex
            line.append("  ⚠ \(TextSanitizer.line(name)) signed two histories", Palette.warning)
        }
        return line
    }
}
