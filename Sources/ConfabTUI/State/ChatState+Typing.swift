import ConfabModel
import ConfabNode

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
    /// stopped once it is empty again. An edit of a sent message is no new message coming.
    func typingAfterEdit(from before: String) -> [ChatEffect] {
        guard typingIndicators, let chat, chat.editing == nil, input.text != before else { return [] }
        return [.typing(chat.id, active: !input.isBlank)]
    }

    /// Leaving the chat, sending, or switching the setting off ends my typing there.
    var typingStopped: [ChatEffect] {
        guard typingIndicators, let chat else { return [] }
        return [.typing(chat.id, active: false)]
    }

    /// Ctrl+T. Off, nothing is sent and nobody is shown typing (the node drops theirs too).
    mutating func toggleTypingIndicators() -> [ChatEffect] {
        let stop = typingStopped
        typingIndicators.toggle()
        if typingIndicators {
            notice = "Typing indicators on: others see when you type, and you see them (Ctrl+T: off)"
            return [.setTypingIndicators(true)]
        }
        typing = [:]
        notice = "Typing indicators off: nobody sees when you type, and you see nobody (Ctrl+T: on)"
        return stop + [.setTypingIndicators(false)]
    }
}
