import ConfabModel

/// Ctrl+E: select a message in the chat and act on it — reply, react, jump to what a reply
/// quotes, save a file someone sent, and for my own messages edit or delete for everyone.
extension ChatState {
    /// Messages of the loaded page that can be selected, oldest first.
    private var selectable: [ChatMessage] { chat?.messages ?? [] }

    /// Whether I can still edit or delete `message`.
    private func isActionable(_ message: ChatMessage) -> Bool {
        message.isMine && !message.isDeleted && message.text != nil
    }

    /// A file someone sent that can be saved now (or accepted, or tried again).
    private func savableFile(_ message: ChatMessage) -> FileInfo? {
        guard !message.isMine, !message.isDeleted, let file = message.file,
            [.complete, .waiting, .failed].contains(file.state)
        else { return nil }
        return file
    }

    /// Ctrl+E: select the newest message.
    mutating func startSelection() {
        guard var chat, let newest = selectable.last else {
            notice = "No message here to act on yet"
            return
        }
        chat.isSelecting = true
        chat.highlight = newest.id
        self.chat = chat
        scroll(to: newest.id)
        noteSelection(newest)
    }

    mutating func handleSelectionKey(_ key: Key) -> [ChatEffect] {
        guard let chat else { return [] }
        let messages = selectable
        guard let index = messages.firstIndex(where: { $0.id == chat.highlight }) else {
            endSelection()
            return []
        }
        let selected = messages[index]
        switch key {
        case .up, .character("k"):
            select(messages[max(0, index - 1)])
        case .down, .character("j"):
            select(messages[min(messages.count - 1, index + 1)])
        case .character("r"):
            beginReply(selected)
        case .character("+"), .character("="):
            guard !selected.isDeleted else {
                notice = "A deleted message cannot be reacted to"
                return []
            }
            overlay = .react(ReactPanel(conversation: chat.id, message: selected))
        case .character("g"):
            return jumpToOriginal(of: selected)
        case .enter where savableFile(selected) != nil, .character("s") where savableFile(selected) != nil:
            return saveSelected(selected)
        case .enter:
            if selected.replyTo != nil { return jumpToOriginal(of: selected) }
            return editSelected(selected)
        case .character("e"):
            return editSelected(selected)
        case .character("d"), .delete:
            guard isActionable(selected) else {
                notice = "Only your own messages can be deleted for everyone"
                return []
            }
            overlay = .confirmUnsend(chat.id, seq: selected.seq)
        case .escape, .control("e"):
            endSelection()
        default:
            noteSelection(selected)
        }
        return []
    }

    private mutating func saveSelected(_ message: ChatMessage) -> [ChatEffect] {
        guard let file = savableFile(message) else { return [] }
        endSelection()
        notice = file.state == .complete ? "Saving \(file.name.map(TextSanitizer.line) ?? "the file")…" : "Fetching it…"
        return [.saveFile(file)]
    }

    private mutating func editSelected(_ message: ChatMessage) -> [ChatEffect] {
        guard isActionable(message) else {
            notice = "Only your own messages can be edited"
            return []
        }
        guard message.file == nil else {
            notice = "A file cannot be edited: d deletes it for everyone"
            return []
        }
        endSelection()
        beginEdit(message)
        return []
    }

    private mutating func select(_ message: ChatMessage) {
        chat?.highlight = message.id
        scroll(to: message.id)
        noteSelection(message)
    }

    private mutating func noteSelection(_ message: ChatMessage) {
        var keys = ["r reply", "+ react"]
        if message.replyTo != nil { keys.append("g original") }
        if savableFile(message) != nil { keys.append("Enter save") }
        if isActionable(message) {
            keys += message.file == nil ? ["e edit", "d delete for everyone"] : ["d delete for everyone"]
        }
        let whose = message.isMine ? "Your message" : "\(TextSanitizer.line(message.authorName))'s message"
        notice = "\(whose): \(keys.joined(separator: " · ")) · Esc done"
    }

    mutating func endSelection() {
        guard chat?.isSelecting == true else { return }
        chat?.isSelecting = false
        chat?.highlight = nil
    }

    /// The next message sent answers `message`; the input bar says so until it is sent or
    /// Esc drops it.
    private mutating func beginReply(_ message: ChatMessage) {
        guard !message.isDeleted else {
            notice = "A deleted message cannot be replied to"
            return
        }
        endSelection()
        chat?.replyingTo = message
        notice = "Replying to \(TextSanitizer.line(message.authorName)) — Enter sends, Esc cancels the reply"
    }

    mutating func cancelReply() {
        chat?.replyingTo = nil
    }

    /// The message a reply quotes: selected when it is in the loaded page, else the chat
    /// is loaded again around it (as a search hit opens it).
    private mutating func jumpToOriginal(of message: ChatMessage) -> [ChatEffect] {
        guard let chat, let quote = message.replyTo else {
            notice = "This message is not a reply"
            return []
        }
        guard quote.isHeld else {
            notice = "The message it replies to is not here yet"
            return []
        }
        let id = quote.ref.id(in: chat.id)
        if let original = chat.messages.first(where: { $0.id == id }) {
            select(original)
            return []
        }
        endSelection()
        return open(chat.id, around: id, summary: chat.summary)
    }

    /// A key in the reaction picker: a number picks a quick emoji, ←/→ and Enter the one
    /// under the cursor (or what was typed), Esc closes. Choosing an emoji I have there
    /// takes it back.
    mutating func handleReactKey(_ key: Key, _ panel: inout ReactPanel) -> [ChatEffect] {
        switch key {
        case .escape:
            overlay = nil
            return []
        case .left where panel.typed.isEmpty:
            panel.cursor = max(0, panel.cursor - 1)
        case .right where panel.typed.isEmpty:
            panel.cursor = min(ReactPanel.quick.count - 1, panel.cursor + 1)
        case .character(let character) where panel.typed.isEmpty && ("1"..."8").contains(character):
            return choose(ReactPanel.quick[Int(String(character))! - 1], panel)
        case .enter:
            let typed = panel.typed.text.trimmingCharacters(in: .whitespaces)
            return choose(typed.isEmpty ? ReactPanel.quick[panel.cursor] : typed, panel)
        default:
            _ = panel.typed.edit(key, multiline: false)
        }
        return []
    }

    private mutating func choose(_ emoji: String, _ panel: ReactPanel) -> [ChatEffect] {
        guard let normalized = ReactionEmoji.normalized(emoji) else {
            notice = "Not one emoji: type a single emoji, or pick one with 1–\(ReactPanel.quick.count)"
            return []
        }
        overlay = nil
        endSelection()
        let removed = panel.mine.contains(normalized)
        notice = removed ? "Taking back \(normalized)…" : "Reacting \(normalized)…"
        return [.react(panel.conversation, target: panel.message.ref, emoji: normalized, removed: removed)]
    }
}
