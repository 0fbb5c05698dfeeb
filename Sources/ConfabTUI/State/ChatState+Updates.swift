import ConfabModel
import ConfabStore

extension ChatState {
    /// Takes in what the runtime reports: answers to effects and news from the node.
    public mutating func apply(_ update: ChatUpdate) -> [ChatEffect] {
        var effects: [ChatEffect] = []
        switch update {
        case .identity(let name, let id):
            me = id
            myName = name
        case .conversations(let list):
            setConversations(list)
            // Messages the open chat shows may have come without a `.message` (another
            // process, a missed event): if the store counts them unread, read them now.
            // A conversation flagged unread by hand is left so.
            if var chat, let summary = summary(chat.id), summary.unreadCount > 0 {
                chat.needsRead = true
                self.chat = chat
            }
        case .history(let id, let messages, let hasOlder, let focus):
            receiveHistory(id, messages, hasOlder: hasOlder, focus: focus)
        case .olderHistory(let id, let messages, let hasOlder):
            receiveOlder(id, messages, hasOlder: hasOlder)
        case .message(let message):
            effects += receive(message)
        case .messageChanged(let message):
            replace(message)
        case .status(let id, let seq, let status):
            effects += receiveStatus(id, seq: seq, status)
        case .peers(let list, let verified):
            peers = list
            self.verified = verified
        case .searchResults(let query, let hits):
            guard case .search(var panel) = overlay, panel.query.text == query else { break }
            panel.hits = hits
            panel.answered = query
            panel.selected = min(panel.selected, max(0, hits.count - 1))
            overlay = .search(panel)
        case .created(let id):
            effects += open(id)
            effects.append(reloadList)
        case .syncProgress(let received, let expected):
            syncReceived = received
            syncExpected = expected
        case .typing(let event):
            noteTyping(event)
        case .typingCleared:
            typing = [:]
        case .notice(let text):
            notice = text
        case .filePeer(let id, let seq, let peer, let held, let complete):
            guard var chat, chat.id == id else { break }
            let key = "\(id.hex)/\(me.hex)/\(seq)"
            chat.fileRecipients[key, default: FileRecipients()].held[peer] = held
            if complete { chat.fileRecipients[key, default: FileRecipients()].complete.insert(peer) }
            self.chat = chat
        case .memberList(let list):
            notice = membersNotice(list)
        case .rooms(let rooms):
            notice =
                rooms.isEmpty
                ? "No rooms yet — /join general"
                : "Rooms: "
                    + rooms.map { "\($0.room) (\($0.joined ? "joined" : "\($0.peers) in session"))" }.joined(
                        separator: ", ") + " — /join NAME"
        case .devices(let answer):
            answerDevices(answer)
        case .files:
            // Files show in their messages here; a list of them is for the plain chat.
            break
        case .fileSave(_, let path):
            notice = path.map { "Saved to \($0)" } ?? "Fetching it — Ctrl+E, Enter again saves it once it is here"
        case .resynced:
            notice = "Resyncing: clocks re-announced, known peers redialled"
        case .completion(let text):
            guard focus == .chat, input.text.hasPrefix("/file ") else { break }
            input.clear()
            input.insert(text)
        }
        return effects + settle()
    }

    /// The list in its box, the question before a removal, or what a removal did.
    private mutating func answerDevices(_ answer: DeviceAnswer) {
        switch answer {
        case .listing(let listing, let online):
            var panel = DevicesPanel(listing: listing, online: online)
            // A newer reading while the box is open keeps the selection on the same machine.
            if case .devices(let open) = overlay { panel = open }
            panel.refresh(listing, online: online, rows: DevicesOverlay.deviceRows(screenHeight: height, panel: panel))
            overlay = .devices(panel)
        case .toRemove(let device):
            overlay = .confirmRemoveDevice(device, from: nil)
        case .removed(let outcome):
            notice = DeviceText.removed(outcome)
        }
    }

    /// "Members: You (admin), Bob", on one line for the status bar.
    private func membersNotice(_ list: MemberList) -> String {
        let names = list.members.map { member in
            (member.id == me ? "You" : TextSanitizer.line(member.name)) + (member.id == list.admin ? " (admin)" : "")
        }
        return (list.includesMe ? "Members: " : "You are no longer a member. Members: ") + names.joined(separator: ", ")
    }

    private mutating func receiveHistory(
        _ id: ConversationID, _ messages: [ChatMessage], hasOlder: Bool, focus: String?
    ) {
        guard var chat, chat.id == id else { return }
        // Early arrivals join the page unless they are older than it (that would leave a gap).
        let early = chat.arrivedWhileLoading.filter { message in
            messages.first.map { $0.orderKey < message.orderKey } ?? true
        }
        chat.arrivedWhileLoading = []
        chat.messages = Self.inOrder(messages + early)
        chat.hasOlder = hasOlder
        chat.isLoaded = true
        chat.isLoadingOlder = false
        chat.newBelow = 0
        if let focus { chat.highlight = focus }
        // Opening a chat reads it, if there is anything to read.
        if let summary = summary(id) {
            chat.needsRead = summary.badgeCount > 0
        } else {
            chat.needsRead = messages.contains { !$0.isMine }
        }
        if early.contains(where: { !$0.isMine }) { chat.needsRead = true }
        noteOwnSeqs(messages)
        self.chat = chat
        scroll(to: chat.highlight)
    }

    private mutating func receiveOlder(_ id: ConversationID, _ messages: [ChatMessage], hasOlder: Bool) {
        guard var chat, chat.id == id else { return }
        let known = Set(chat.messages.map(\.id))
        // Lines are counted from the bottom, so adding above leaves the view where it was.
        chat.messages = Self.inOrder(messages.filter { !known.contains($0.id) } + chat.messages)
        chat.hasOlder = hasOlder
        chat.isLoadingOlder = false
        noteOwnSeqs(messages)
        self.chat = chat
    }

    private mutating func receive(_ message: ChatMessage) -> [ChatEffect] {
        if message.isSystemLine {
            receiveSystemLine(message)
            return []
        }
        let id = message.conversationID
        noteOwnSeqs([message])
        var isRepeat = false
        var isNewestLoaded: Bool?
        if var chat, chat.id == id, chat.isLoaded {
            if let index = chat.messages.firstIndex(where: { $0.author == message.author && $0.seq == message.seq }) {
                chat.messages[index] = message
                chat.metrics.forget(message)
                isRepeat = true
            } else {
                let before = measure(chat).total
                let index = chat.messages.firstIndex { message.orderKey < $0.orderKey } ?? chat.messages.count
                chat.messages.insert(message, at: index)
                isNewestLoaded = index == chat.messages.count - 1
                if chat.scroll > 0 {
                    let after = measure(chat)
                    let linesBelow = after.total - after.ranges[index].upperBound
                    if linesBelow < chat.scroll {
                        // It landed below the view: keep the view still and say so.
                        chat.scroll += after.total - before
                        if !message.isMine { chat.newBelow += 1 }
                    }
                }
                if !message.isMine { chat.needsRead = true }
            }
            chat.updateQuotes(of: message)
            self.chat = chat
        } else if var chat, chat.id == id {
            chat.arrivedWhileLoading.append(message)
            self.chat = chat
        }
        var effects: [ChatEffect] = []
        if let summary = summary(id) {
            update(id) { row in
                let isNewer = isNewestLoaded ?? (row.lastMessage.map { message.sentAt >= $0.sentAt } ?? true)
                if isNewer { row.lastMessage = .init(message) }
                row.lastActivityAt = max(row.lastActivityAt, message.sentAt)
                if !message.isMine, !isRepeat { row.unreadCount += 1 }
            }
            if shouldNotify(message, muted: summary.isMuted, isRepeat: isRepeat) { effects.append(.notify(message)) }
        } else {
            // A conversation the list does not have yet (an invitation, or hidden): fetch it.
            effects.append(reloadList)
            if shouldNotify(message, muted: false, isRepeat: isRepeat) { effects.append(.notify(message)) }
        }
        return effects
    }

    /// A change of members (Protocol.md §4.8): a line in the open chat where it belongs,
    /// never news — no preview, unread count or notification.
    private mutating func receiveSystemLine(_ line: ChatMessage) {
        guard var chat, chat.id == line.conversationID else { return }
        if !chat.isLoaded {
            chat.arrivedWhileLoading.append(line)
        } else if !chat.messages.contains(where: { $0.id == line.id }) {
            chat.messages = Self.inOrder(chat.messages + [line])
        }
        self.chat = chat
    }

    private mutating func replace(_ message: ChatMessage) {
        let id = message.conversationID
        if var chat, chat.id == id {
            if let index = chat.messages.firstIndex(where: { $0.author == message.author && $0.seq == message.seq }) {
                chat.messages[index] = message
                chat.metrics.forget(message)
            }
            if let index = chat.arrivedWhileLoading.firstIndex(where: {
                $0.author == message.author && $0.seq == message.seq
            }) {
                chat.arrivedWhileLoading[index] = message
            }
            if chat.replyingTo?.ref == message.ref { chat.replyingTo = message }
            chat.updateQuotes(of: message)
            self.chat = chat
        }
        // The preview shows the newest message: the same author at the same time is it.
        if let last = summary(id)?.lastMessage, last.author == message.author, last.sentAt == message.sentAt {
            update(id) { $0.lastMessage = .init(message) }
        }
    }

    /// Someone else wrote, the conversation is not muted (or the message mentions me: a
    /// mention comes through a mute), and the chat is not on screen. Scrolled up in the
    /// open chat, the "new messages" indicator tells instead.
    private func shouldNotify(_ message: ChatMessage, muted: Bool, isRepeat: Bool) -> Bool {
        guard !message.isMine, !muted || message.mentionsMe, !isRepeat else { return false }
        return !(chat?.id == message.conversationID && chatIsVisible)
    }

    private mutating func receiveStatus(_ id: ConversationID, seq: UInt64, _ status: DeliveryStatus) -> [ChatEffect] {
        if var chat, chat.id == id,
            let index = chat.messages.firstIndex(where: { $0.isMine && $0.seq == seq })
        {
            chat.messages[index] = chat.messages[index].with(status: status)
            self.chat = chat
        }
        guard let last = summary(id)?.lastMessage, last.isMine else { return [] }
        guard let newest = lastOwnSeq[id] else {
            // Which of my messages the preview shows is unknown here; the store knows.
            return [reloadList]
        }
        if newest == seq, last.status != status {
            update(id) { $0.lastMessage = last.with(status: status) }
        }
        return []
    }

    private mutating func noteOwnSeqs(_ messages: [ChatMessage]) {
        for message in messages where message.isMine {
            lastOwnSeq[message.conversationID] = max(lastOwnSeq[message.conversationID] ?? 0, message.seq)
        }
    }

    /// Display order, each message once.
    static func inOrder(_ messages: [ChatMessage]) -> [ChatMessage] {
        var seen = Set<String>()
        return messages.sorted { $0.orderKey < $1.orderKey }.filter { seen.insert($0.id).inserted }
    }
}
