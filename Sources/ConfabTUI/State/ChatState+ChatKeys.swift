import ConfabModel

extension ChatState {
    mutating func handleChatKey(_ key: Key) -> [ChatEffect] {
        switch key {
        case .enter: return send()
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
