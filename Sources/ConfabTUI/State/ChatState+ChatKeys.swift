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
        if key == .escape, chat?.replyingTo != nil {
            cancelReply()
            notice = "Reply cancelled"
            return []
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
        case .altEnter:
            let before = input.text
            input.insert("\n")
            return typingAfterEdit(from: before)
        case .escape:
            focus = .list
            return stopTyping()
        case .up: return scrollChat(by: 1)
        case .down: return scrollChat(by: -1)
        case .pageUp: return scrollChat(by: pageLines)
        case .pageDown: return scrollChat(by: -pageLines)
        default:
            let before = input.text
            _ = input.edit(key, multiline: true)
            return typingAfterEdit(from: before)
        }
        return []
    }

    /// The message's text goes into the input bar (what was typed is kept for after).
    mutating func beginEdit(_ message: ChatMessage) {
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
        return stopTyping() + [.sendFile(chat.id, path: path)]
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
        if let command = MembersCommand(line: text) {
            input.clear()
            return stopTyping() + [.members(chat.id, command)]
        }
        if let command = DeviceCommand(line: text) {
            input.clear()
            if case .invalid(let why) = command {
                notice = why
                return stopTyping()
            }
            // A typed --yes is for the plain chat and scripts: here a box asks anyway.
            if case .remove(let query, _) = command {
                return stopTyping() + [.devices(.remove(query, confirmed: false))]
            }
            return stopTyping() + [.devices(command)]
        }
        if let command = RoomCommand(line: text) {
            input.clear()
            switch command.effect {
            case .success(let effect): return stopTyping() + [effect]
            case .failure(let error):
                notice = error.message
                return stopTyping()
            }
        }
        input.clear()
        chat.scroll = 0
        chat.newBelow = 0
        chat.highlight = nil
        let reply = chat.replyingTo?.ref
        chat.replyingTo = nil
        self.chat = chat
        // The message itself ends my typing wherever it was shown (§10.2): no stop before it,
        // which would reach the others first and cost them a redraw on the message's way.
        typingIn = nil
        return [.send(chat.id, text: text, replyTo: reply)]
    }
}
