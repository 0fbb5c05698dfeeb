import ConfabModel

extension ChatState {
    mutating func handleListKey(_ key: Key) -> [ChatEffect] {
        let page = ConversationListView.capacity(height: layout.bodyHeight)
        switch key {
        case .up, .character("k"): moveSelection(by: -1)
        case .down, .character("j"): moveSelection(by: 1)
        case .pageUp: moveSelection(by: -page)
        case .pageDown: moveSelection(by: page)
        case .home: select(index: 0)
        case .end: select(index: visibleConversations.count - 1)
        case .enter, .right:
            guard let selected = selectedSummary else { return [] }
            return open(selected.id)
        case .escape:
            guard showArchived else { return [] }
            showArchived = false
            return [reloadList]
        case .character("/"): overlay = .search(SearchPanel())
        case .character("?"): overlay = .help(top: 0)
        case .character("q"):
            wantsQuit = true
            return [.quit]
        case .character("a"): return toggleArchived()
        case .character("p"): return togglePinned()
        case .character("u"): return toggleUnread()
        case .character("d"):
            if let selected = selectedSummary { overlay = .confirmDelete(selected.id) }
        case .character("A"):
            showArchived.toggle()
            return [reloadList]
        case .character("D"):
            // The list has no input bar for /devices, and a just-linked machine has no chat to open.
            return [.devices(.list)]
        default: break
        }
        return []
    }

    private mutating func moveSelection(by offset: Int) {
        guard let index = selectedIndex else { return }
        select(index: index + offset)
    }

    private mutating func toggleArchived() -> [ChatEffect] {
        guard let selected = selectedSummary, let index = selectedIndex else { return [] }
        let archive = !selected.isArchived
        update(selected.id) { $0.isArchived = archive }
        if archive, !showArchived {
            // The row disappears: the selection moves to the one that takes its place.
            select(index: index)
            notice = "Archived — A shows archived conversations"
        }
        return [.setArchived(selected.id, archive), reloadList]
    }

    private mutating func togglePinned() -> [ChatEffect] {
        guard let selected = selectedSummary else { return [] }
        let pin = !selected.isPinned
        update(selected.id) { $0.isPinned = pin }
        return [.setPinned(selected.id, pin), reloadList]
    }

    /// Unread (new messages or flagged) becomes read; read becomes flagged unread.
    private mutating func toggleUnread() -> [ChatEffect] {
        guard let selected = selectedSummary else { return [] }
        if selected.unreadCount > 0 {
            update(selected.id) {
                $0.unreadCount = 0
                $0.isMarkedUnread = false
            }
            return [.markRead(selected.id), reloadList]
        }
        let flag = !selected.isMarkedUnread
        update(selected.id) { $0.isMarkedUnread = flag }
        return [.setMarkedUnread(selected.id, flag), reloadList]
    }
}
