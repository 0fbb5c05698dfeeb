import ConfabModel

extension ChatState {
    /// One key press. Ctrl+C quits and Ctrl+Z suspends from anywhere; an open overlay
    /// takes every other key; then the keys that work everywhere; then the list's or the
    /// chat's own.
    public mutating func handle(_ key: Key) -> [ChatEffect] {
        if key == .control("c") {
            wantsQuit = true
            return [.quit]
        }
        if key == .control("z") { return [.suspend] }
        notice = nil
        let effects: [ChatEffect]
        if let overlay {
            effects = handleOverlayKey(key, overlay)
        } else if focus == .chat, key == .tab, input.text.hasPrefix("/file ") {
            // Tab completes the path after /file instead of moving to the list.
            effects = [.completePath(input.text)]
        } else if let global = handleGlobalKey(key) {
            effects = global
        } else {
            switch focus {
            case .list: effects = handleListKey(key)
            case .chat: effects = handleChatKey(key)
            }
        }
        return effects + settle()
    }

    /// Keys that work with the list or the chat focused; nil when `key` is not one.
    private mutating func handleGlobalKey(_ key: Key) -> [ChatEffect]? {
        switch key {
        case .tab, .shiftTab:
            // Two places to be: either key moves to the other one.
            if focus == .chat {
                focus = .list
                return stopTyping()
            } else if chat != nil {
                focus = .chat
            }
            return []
        case .control("k"):
            overlay = .newConversation(NewConversationPanel())
            return []
        case .control("n"):
            return openRelative(1)
        case .control("p"):
            return openRelative(-1)
        case .control("u"):
            return openNextUnread()
        case .control("r"):
            notice = "Resyncing with peers…"
            return [.resync]
        case .control("t"):
            return toggleTypingIndicators()
        case .alt(let character):
            guard let number = character.wholeNumberValue, (1...9).contains(number), character.isASCII else {
                return []
            }
            let rows = visibleConversations
            guard number <= rows.count else { return [] }
            return open(rows[number - 1].id)
        default:
            return nil
        }
    }

    /// The conversation `offset` rows from the open one (or the selection), opened.
    private mutating func openRelative(_ offset: Int) -> [ChatEffect] {
        let rows = visibleConversations
        guard !rows.isEmpty else { return [] }
        let current = chat.flatMap { open in rows.firstIndex { $0.id == open.id } } ?? selectedIndex
        let target = current.map { min(max(0, $0 + offset), rows.count - 1) } ?? 0
        guard rows[target].id != chat?.id else {
            focus = .chat
            return []
        }
        return open(rows[target].id)
    }

    /// The next conversation after the open one that has unread messages, wrapping around.
    private mutating func openNextUnread() -> [ChatEffect] {
        let rows = visibleConversations
        let start = chat.flatMap { open in rows.firstIndex { $0.id == open.id } } ?? selectedIndex ?? -1
        for step in rows.indices {
            let index = (start + 1 + step + rows.count) % rows.count
            if rows[index].badgeCount > 0, rows[index].id != chat?.id { return open(rows[index].id) }
        }
        notice = "No unread conversations"
        return []
    }
}
