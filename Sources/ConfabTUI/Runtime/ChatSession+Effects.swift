import ConfabClient
import ConfabModel
import ConfabStore
import Foundation

extension ChatSession {
    /// Turns this chat's effects into operations on whichever messenger is current: the same
    /// performer as the plain chat's.
    var performer: ChatEffectPerformer {
        ChatEffectPerformer(messenger: messenger, resolver: Resolver(store: local.store), me: local.me)
    }

    /// Performs effects in order; the updates they produce may ask for more, which are
    /// performed before returning.
    func perform(_ effects: [ChatEffect]) async throws {
        var queue = effects[...]
        while let effect = queue.popFirst() {
            queue += try await perform(effect)
        }
    }

    /// The updates applied in order, and the effects they ask for.
    func apply(_ updates: [ChatUpdate]) -> [ChatEffect] {
        var effects: [ChatEffect] = []
        for update in updates { effects += state.apply(update) }
        return effects
    }

    private func perform(_ effect: ChatEffect) async throws -> [ChatEffect] {
        switch effect {
        case .openConversation(let id, _):
            // Where this chat opens next time: a setting of this terminal chat alone, which no
            // other front end reads or shares, so it stays a note in the store.
            try? local.store.setMetaValue(Self.lastOpenKey, id.hex)
        case .search(let query):
            search(query)
            return []
        case .typing(let id, let active):
            // Best effort, and never news: a failure here is not worth a notice per key.
            guard online, typingPacer.shouldSignal(active, in: id) else { return [] }
            try? await messenger.typing(active, in: id)
            return []
        case .send(let id, _, _):
            // The message ends my typing at every receiver (§10.2), with no stop sent: the
            // next key typed there is news at once, not paced against the start before it.
            typingPacer.messageWritten(in: id)
        case .notify(let message):
            screen.notify(message, state.conversations.first { $0.id == message.conversationID })
            return []
        case .suspend:
            screen.suspend()
            return []
        default:
            break
        }
        return apply(try await performer.perform(effect))
    }

    /// Searches after a short pause in typing, off the input path, newest query wins.
    private func search(_ query: String) {
        searchTask?.cancel()
        let performer = self.performer
        searchTask = Task { [continuation] in
            try? await Task.sleep(for: .milliseconds(120))
            guard !Task.isCancelled else { return }
            let updates = (try? await performer.perform(.search(query))) ?? [.searchResults(query: query, [])]
            guard !Task.isCancelled else { return }
            continuation.yield(.answered(updates))
        }
    }
}
