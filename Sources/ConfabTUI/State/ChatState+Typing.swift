import ConfabClient
import ConfabModel

extension ChatState {
    /// Who is typing in `conversation`, as the header names them.
    func typingNames(in conversation: ConversationID) -> [String] {
        let participants = summary(conversation)?.participants ?? []
        return (typing[conversation] ?? []).map { event in
            participants.first { $0.id == event.peer }?.name ?? event.name
        }
    }

    mutating func noteTyping(_ event: TypingEvent) {
        var typers = typing[event.conversation] ?? []
        typers.removeAll { $0.peer == event.peer }
        if event.active, typingIndicators { typers.append(event) }
        typing[event.conversation] = typers.isEmpty ? nil : typers
    }

    /// After a key that may have changed the input: typing while something is typed, and
    /// stopped once it is blank again. An edit of a sent message is no new message coming.
    mutating func typingAfterEdit(from before: String) -> [ChatEffect] {
        guard typingIndicators, let chat, chat.editing == nil, input.text != before else { return [] }
        if input.isBlank { return stopTyping() }
        typingIn = chat.id
        return [.typing(chat.id, active: true)]
    }

    /// Sending, leaving the chat, quitting or switching the setting off ends my typing,
    /// if it was said.
    mutating func stopTyping() -> [ChatEffect] {
        guard let id = typingIn else { return [] }
        typingIn = nil
        return [.typing(id, active: false)]
    }

    /// Ctrl+T. Off, nothing is sent and nobody is shown typing (the node drops theirs too).
    mutating func toggleTypingIndicators() -> [ChatEffect] {
        typingIndicators.toggle()
        if typingIndicators {
            notice = "Typing indicators on: others see when you type, and you see them (Ctrl+T: off)"
            return [.setTypingIndicators(true)]
        }
        let stop = stopTyping()
        typing = [:]
        notice = "Typing indicators off: nobody sees when you type, and you see nobody (Ctrl+T: on)"
        return stop + [.setTypingIndicators(false)]
    }
}
