import ConfabClient
import ConfabModel

/// Ctrl+K: choose people from the known peers (online first) and, if wanted, a title.
struct NewConversationOverlay {
    static let title = "New conversation"
    static let instructions = "↑/↓ and Space choose people · Tab: title · Enter: create · title #NAME: join a room"
    static let noPeers = [
        "No peers known yet. Add one with:", "confab peers add KEY --name NAME",
        "or type #general as the title (Tab) to join a room",
    ]
    static let titlePrompt = "Title (optional): "

    let panel: NewConversationPanel
    let candidates: [PeerPresence]
    let screenWidth: Int
    let screenHeight: Int

    /// Peer rows that fit with the instructions and the title field.
    private var peerRows: Int { max(1, screenHeight - 8) }

    func box() -> (box: OverlayBox, cursor: Frame.Cursor?) {
        let width = min(60, max(20, screenWidth - 6))
        var content = [ScreenLine(Self.instructions, Palette.dim), ScreenLine()]
        if candidates.isEmpty {
            content += Self.noPeers.map { ScreenLine($0) }
        } else {
            let first = max(0, panel.cursor - peerRows + 1)
            for (index, peer) in candidates.enumerated().dropFirst(first).prefix(peerRows) {
                var line = ScreenLine(panel.chosen.contains(peer.id) ? "[x] " : "[ ] ", Palette.bold)
                line.append(TextSanitizer.line(peer.name))
                line.append(peer.online ? "  online" : "  offline", peer.online ? Palette.online : Palette.offline)
                line = line.fitted(to: width)
                if index == panel.cursor, panel.field == .people { line = line.restyled { $0.reverse = true } }
                content.append(line)
            }
        }
        content.append(ScreenLine())
        var field = ScreenLine(Self.titlePrompt, panel.field == .title ? Palette.bold : Palette.dim)
        field.append(TextSanitizer.line(panel.title.text))
        content.append(field)
        let box = OverlayBox(
            title: Self.title, content: content, preferredWidth: width, screenWidth: screenWidth,
            screenHeight: screenHeight)
        guard panel.field == .title else { return (box, nil) }
        let before = String(panel.title.characters.prefix(panel.title.cursor))
        let column = DisplayWidth.of(Self.titlePrompt) + DisplayWidth.of(TextSanitizer.line(before))
        return (box, box.screenPosition(contentRow: content.count - 1, column: column))
    }
}
