import ConfabModel
import ConfabNode

/// The top of the chat pane: the title or the names, each person's verified mark and
/// whether they are online, then a rule.
struct ChatHeaderView {
    static let verifiedMark = "✔"

    let conversation: ConversationID
    let summary: ConversationSummary?
    let peers: [PeerPresence]
    let verified: Set<NodeID>
    let width: Int

    func lines() -> [ScreenLine] {
        [headline().fitted(to: width), .rule(width: width)]
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
            line.append(ConversationRow.topicBadge + " ", Palette.topicBadge)
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
        for author in summary.forkedAuthors {
            let name = summary.participants.first { $0.id == author }?.name ?? author.shortHex
            line.append("  ⚠ \(TextSanitizer.line(name)) signed two histories", Palette.warning)
        }
        return line
    }
}
