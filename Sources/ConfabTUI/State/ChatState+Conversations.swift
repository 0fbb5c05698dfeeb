import ConfabClient
import ConfabModel

extension ChatState {
    /// The rows of the list: archived ones only while they are shown.
    var visibleConversations: [ConversationSummary] {
        showArchived ? conversations : conversations.filter { !$0.isArchived }
    }

    func summary(_ id: ConversationID) -> ConversationSummary? {
        conversations.first { $0.id == id } ?? (chat?.id == id ? chat?.summary : nil)
    }

    /// The selected row's index; the selection falls back to the open chat, then the top.
    var selectedIndex: Int? {
        let rows = visibleConversations
        if let selectedID, let index = rows.firstIndex(where: { $0.id == selectedID }) { return index }
        if let open = chat?.id, let index = rows.firstIndex(where: { $0.id == open }) { return index }
        return rows.isEmpty ? nil : 0
    }

    var selectedSummary: ConversationSummary? {
        selectedIndex.map { visibleConversations[$0] }
    }

    mutating func select(index: Int) {
        let rows = visibleConversations
        guard !rows.isEmpty else { return }
        selectedID = rows[min(max(0, index), rows.count - 1)].id
    }

    mutating func setConversations(_ list: [ConversationSummary]) {
        conversations = list.sorted(by: ConversationSummary.listOrder)
        if let id = chat?.id, let row = conversations.first(where: { $0.id == id }) { chat?.summary = row }
    }

    mutating func update(_ id: ConversationID, _ change: (inout ConversationSummary.Changes) -> Void) {
        guard let index = conversations.firstIndex(where: { $0.id == id }) else { return }
        conversations[index] = conversations[index].changing(change)
        conversations.sort(by: ConversationSummary.listOrder)
    }

    mutating func remove(_ id: ConversationID) {
        conversations.removeAll { $0.id == id }
        if chat?.id == id {
            chat = nil
            input.clear()
            focus = .list
        }
        drafts[id] = nil
    }

    var reloadList: ChatEffect { .loadConversations(includeArchived: showArchived) }

    /// Opens a conversation in the chat pane and moves the focus there. Re-opening the
    /// chat already shown only focuses it, unless a search asks for a particular message.
    mutating func open(
        _ id: ConversationID, around message: String? = nil, summary known: ConversationSummary? = nil
    ) -> [ChatEffect] {
        selectedID = id
        focus = .chat
        overlay = nil
        if let chat, chat.id == id, message == nil, chat.isLoaded { return [] }
        let stop = chat?.id != id ? stopTyping() : []
        // Leaving a chat mid-edit cancels the edit, so its text never becomes a draft.
        if chat?.editing != nil { endEdit() }
        if let chat, chat.id != id {
            drafts[chat.id] = input.isEmpty ? nil : input
            input = drafts.removeValue(forKey: id) ?? InputBuffer()
        } else if chat == nil {
            input = drafts.removeValue(forKey: id) ?? InputBuffer()
        }
        chat = OpenChat(id: id, highlight: message)
        chat?.summary = known ?? conversations.first { $0.id == id }
        return stop + [.openConversation(id, around: message)]
    }

    /// The people Ctrl+K offers: known peers but me and my own other machines, online
    /// first, then by name.
    var newConversationCandidates: [PeerPresence] {
        peers.filter { $0.id != me && $0.ownDevice != true }.sorted { a, b in
            if a.online != b.online { return a.online }
            let (left, right) = (a.name.lowercased(), b.name.lowercased())
            if left != right { return left < right }
            return a.id < b.id
        }
    }

    var onlinePeerCount: Int { peers.filter { $0.online && $0.id != me }.count }
}
