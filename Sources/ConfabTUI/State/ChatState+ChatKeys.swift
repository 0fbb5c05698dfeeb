import ConfabModel

extension ChatState {
    mutating func handleChatKey(_ key: Key) -> [ChatEffect] {
        if chat?.isSelecting == true { return handleSelectionKey(key) }
        if let seq = chat?.editing {
            switch key {
            case .enter: return saveEdit(seq)
            case .escape:
                endEdit()
                notice = "Edit cancelled"
                return []
            case .control("e"):
                // One thing at a time: the edit under way is saved or cancelled first.
                notice = "Editing your message #\(seq) — Enter saves, Esc cancels"
                return []
            default:
                break
            }
        }
        let effects = handlePlainChatKey(key)
        if let seq = chat?.editing { notice = "Editing your message #\(seq) — Enter saves, Esc cancels" }
        return effects
    }

    private mutating func handlePlainChatKey(_ key: Key) -> [ChatEffect] {
        switch key {
        case .enter where input.text.hasPrefix("/file"): return sendFile()
        case .enter: return send()
        case .control("e"): startSelection()
        case .altEnter: input.insert("\n")
        case .escape: focus = .list
        case .up: return scrollChat(by: 1)
        case .down: return scrollChat(by: -1)
        case .pageUp: return scrollChat(by: pageLines)
        case .pageDown: return scrollChat(by: -pageLines)
        default: _ = input.edit(key, multiline: true)
        }
        return []
    }

    /// Messages in the loaded page there is something to do with, oldest first: mine that
    /// can still be edited or deleted, and files of others that can be saved or accepted.
    private var actionable: [ChatMessage] {
        chat?.messages.filter { message in
            guard !message.isDeleted else { return false }
            if message.isMine { return message.text != nil }
            return [.complete, .waiting, .failed].contains(message.file?.state)
        } ?? []
    }

    /// Ctrl+E: select the newest such message; ↑/↓ move among them; on mine e edits and d
    /// deletes for everyone (asks first), on a received file Enter saves it; Esc ends.
    private mutating func startSelection() {
        guard var chat, let newest = actionable.last else {
            notice = "No message of yours to edit or delete, nor a file to save, here"
            return
        }
        chat.isSelecting = true
        chat.highlight = newest.id
        self.chat = chat
        scroll(to: newest.id)
        noteSelection()
    }

    private mutating func handleSelectionKey(_ key: Key) -> [ChatEffect] {
        guard let chat else { return [] }
        let mine = actionable
        guard let index = mine.firstIndex(where: { $0.id == chat.highlight }) else {
            endSelection()
            return []
        }
        let selected = mine[index]
        switch key {
        case .up, .character("k"):
            select(mine[max(0, index - 1)])
        case .down, .character("j"):
            select(mine[min(mine.count - 1, index + 1)])
        case _ where !selected.isMine && (key == .enter || key == .character("s")):
            guard let file = selected.file else { return [] }
            endSelection()
            notice =
                file.state == .complete ? "Saving \(file.name.map(TextSanitizer.line) ?? "the file")…" : "Fetching it…"
            return [.saveFile(file)]
        case _ where !selected.isMine:
            noteSelection()
        case .character("e"), .enter:
            guard selected.file == nil else {
                notice = "A file cannot be edited: d deletes it for everyone"
                return []
            }
            endSelection()
            beginEdit(selected)
        case .character("d"), .delete:
            overlay = .confirmUnsend(chat.id, seq: selected.seq)
        case .escape, .control("e"):
            endSelection()
        default:
            noteSelection()
        }
        return []
    }

    private mutating func select(_ message: ChatMessage) {
        chat?.highlight = message.id
        scroll(to: message.id)
        noteSelection()
    }

    private mutating func noteSelection() {
        let selected = chat?.messages.first { $0.id == chat?.highlight }
        if let selected, !selected.isMine {
            notice = "A file: Enter saves it · ↑/↓ another · Esc done"
        } else {
            notice = "Your message: e edit · d delete for everyone · ↑/↓ another · Esc done"
        }
    }

    mutating func endSelection() {
        guard chat?.isSelecting == true else { return }
        chat?.isSelecting = false
        chat?.highlight = nil
    }

    /// The message's text goes into the input bar (what was typed is kept for after).
    private mutating func beginEdit(_ message: ChatMessage) {
        guard var chat, let text = message.text else { return }
        chat.draftBeforeEdit = input.text
        chat.editing = message.seq
        self.chat = chat
        input.clear()
        input.insert(text)
        notice = "Editing your message #\(message.seq) — Enter saves, Esc cancels"
    }

    /// Ends an edit without saving: what was typed before it comes back.
    mutating func endEdit() {
        guard var chat else { return }
        let draft = chat.draftBeforeEdit ?? ""
        chat.editing = nil
        chat.draftBeforeEdit = nil
        self.chat = chat
        input.clear()
        if !draft.isEmpty { input.insert(draft) }
    }

    private mutating func saveEdit(_ seq: UInt64) -> [ChatEffect] {
        guard let chat, !input.isBlank else { return [] }
        var text = input.text
        while let last = text.last, last.isNewline { text.removeLast() }
        guard text.utf8.count <= Limits.maxMessageTextBytes else {
            notice = "Too long: the limit is \(NumberText.grouped(Limits.maxMessageTextBytes)) bytes"
            return []
        }
        let unchanged = chat.messages.first { $0.isMine && $0.seq == seq }?.text == text
        endEdit()
        if unchanged {
            notice = "Not changed"
            return []
        }
        return [.edit(chat.id, seq: seq, text: text)]
    }

    /// `/file PATH`: the file (or folder) goes as a file message.
    private mutating func sendFile() -> [ChatEffect] {
        guard let chat else { return [] }
        let path = input.text.dropFirst("/file".count).trimmingCharacters(in: .whitespacesAndNewlines)
        guard input.text == "/file" || input.text.hasPrefix("/file ") else { return send() }
        guard !path.isEmpty else {
            notice = "/file PATH sends a file or a folder (Tab completes the path)"
            return []
        }
        input.clear()
        notice = "Sending \(TextSanitizer.line(path))…"
        return [.sendFile(chat.id, path: path)]
    }

    /// Sends what is typed unless it is blank. Trailing newlines go (an Alt+Enter too
    /// many); everything else is sent as typed. Sending jumps to the newest message.
    private mutating func send() -> [ChatEffect] {
        guard var chat, !input.isBlank else { return [] }
        var text = input.text
        while let last = text.last, last.isNewline { text.removeLast() }
        let bytes = text.utf8.count
        guard bytes <= Limits.maxMessageTextBytes else {
            notice =
                "Too long to send: \(NumberText.grouped(bytes)) bytes, "
                + "the limit is \(NumberText.grouped(Limits.maxMessageTextBytes))"
            return []
        }
        input.clear()
        chat.scroll = 0
        chat.newBelow = 0
        chat.highlight = nil
        self.chat = chat
        return [.send(chat.id, text: text)]
    }
}
