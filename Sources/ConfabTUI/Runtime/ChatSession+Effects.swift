import ConfabClient
import ConfabModel
import ConfabStore
import Foundation

extension ChatSession {
    /// Performs effects in order; the updates they produce may ask for more, which are
    /// performed before returning. Reads go to the local store (SQLite, milliseconds);
    /// every write goes through the messenger, like every other front end's.
    func perform(_ effects: [ChatEffect]) async throws {
        var queue = effects[...]
        while let effect = queue.popFirst() {
            queue += try await perform(effect)
        }
    }

    private func perform(_ effect: ChatEffect) async throws -> [ChatEffect] {
        let store = local.store
        switch effect {
        case .loadConversations(let includeArchived):
            return state.apply(.conversations(try store.conversations(includeArchived ? .all : .inbox)))
        case .openConversation(let id, let around):
            try? store.setMetaValue(Self.lastOpenKey, id.hex)
            if let around, let key = try messageKey(around) {
                let (messages, hasOlder) = try store.history(id, from: key)
                return state.apply(.history(id, messages, hasOlder: hasOlder, focus: around))
            }
            let messages = try store.history(id, limit: Self.pageSize)
            return state.apply(.history(id, messages, hasOlder: messages.count == Self.pageSize, focus: nil))
        case .loadOlder(let id, let before):
            do {
                let messages = try store.history(id, limit: Self.pageSize, before: before)
                return state.apply(.olderHistory(id, messages, hasOlder: messages.count == Self.pageSize))
            } catch {
                // Answered either way, or the chat would wait for the page forever.
                return state.apply(.olderHistory(id, [], hasOlder: false))
                    + state.apply(.notice("Could not load older messages: \(String(describing: error))"))
            }
        case .send(let id, let text, let replyTo):
            let sent = try await messenger.send(text, to: .conversation(id), replyTo: replyTo)
            guard let message = try store.message(id, author: local.me, seq: sent.seq) else { return [] }
            return state.apply(.message(message))
        case .edit(let id, let seq, let text):
            _ = try await messenger.edit(seq, in: id, text: text)
            guard let message = try store.message(id, author: local.me, seq: seq) else { return [] }
            return state.apply(.messageChanged(message))
        case .sendFile(let id, let path):
            let sent = try await FileActions.send(path, to: id, messenger: messenger)
            var effects: [ChatEffect] = []
            for file in sent {
                if let message = try store.message(id, author: local.me, seq: file.seq) {
                    effects += state.apply(.message(message))
                }
            }
            let what = sent.count == 1 ? sent[0].name : "\(sent.count) files"
            return effects + state.apply(.notice("Sent \(TextSanitizer.line(what)); recipients fetch it from here"))
        case .saveFile(let file):
            switch try await FileActions.save(file, store: store, messenger: messenger) {
            case .saved(let url): return state.apply(.notice("Saved to \(url.path)"))
            case .fetching:
                return state.apply(.notice("Fetching it — Ctrl+E, Enter again saves it once it is here"))
            }
        case .completePath(let input):
            return state.apply(.completion(FileActions.complete(input)))
        case .unsend(let id, let seq):
            _ = try await messenger.unsend(seq, in: id)
            guard let message = try store.message(id, author: local.me, seq: seq) else { return [] }
            return state.apply(.messageChanged(message)) + state.apply(.notice("Deleted for everyone"))
        case .react(let id, let target, let emoji, let removed):
            let done = try await messenger.react(emoji, to: target, in: id, removed: removed)
            guard let message = try store.message(id, author: target.author, seq: target.seq) else { return [] }
            return state.apply(.messageChanged(message))
                + state.apply(.notice(removed ? "Took back \(done.emoji)" : "Reacted \(done.emoji)"))
        // The state has already changed its rows and asks for a reload where one is needed.
        case .markRead(let id):
            // Also clears a "marked unread" flag.
            try await messenger.markRead(id)
            return []
        case .setArchived(let id, let value):
            try await messenger.setFlag(.archived, value, on: id)
            return []
        case .setPinned(let id, let value):
            try await messenger.setFlag(.pinned, value, on: id)
            return []
        case .setMarkedUnread(let id, let value):
            try await messenger.setFlag(.markedUnread, value, on: id)
            return []
        case .delete(let id):
            try await messenger.delete(id)
            return state.apply(.notice("Deleted the conversation from this machine"))
        case .search(let query):
            search(query)
            return []
        case .createConversation(let participants, let title):
            let created = try await messenger.create(with: participants, title: title, firstMessage: nil)
            return state.apply(.created(created.conversation))
        case .typing(let id, let active):
            // Best effort, and never news: a failure here is not worth a notice per key.
            guard online, typingPacer.shouldSignal(active, in: id) else { return [] }
            try? await messenger.typing(active, in: id)
            return []
        case .setTypingIndicators(let on):
            try local.store.setTypingIndicators(on)
            return []
        case .resync:
            guard online else { return state.apply(.notice("Offline: no node is running yet")) }
            try await messenger.resync()
            return state.apply(.notice("Resyncing: clocks re-announced, known peers redialled"))
        case .members(let id, let command):
            return try await performMembers(command, in: id)
        case .notify(let message):
            screen.notify(message, state.conversations.first { $0.id == message.conversationID })
            return []
        case .quit:
            return []
        case .suspend:
            screen.suspend()
            return []
        }
    }

    /// A message id `<conversation>/<author>/<seq>` to its place in the display order.
    private func messageKey(_ id: String) throws -> DisplayOrderKey? {
        let parts = id.split(separator: "/")
        guard parts.count == 3, let conversation = ConversationID(hex: String(parts[0])),
            let author = NodeID(hex: String(parts[1])), let seq = UInt64(parts[2])
        else { return nil }
        return try local.store.message(conversation, author: author, seq: seq)?.orderKey
    }

    /// Searches after a short pause in typing, off the input path, newest query wins.
    private func search(_ query: String) {
        searchTask?.cancel()
        let store = local.store
        searchTask = Task { [continuation] in
            try? await Task.sleep(for: .milliseconds(120))
            guard !Task.isCancelled else { return }
            let hits = (try? store.search(query)) ?? []
            guard !Task.isCancelled else { return }
            continuation.yield(.searchResults(query: query, hits))
        }
    }
}
