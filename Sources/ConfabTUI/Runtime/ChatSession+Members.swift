import ConfabClient
import ConfabModel

extension ChatSession {
    /// `/members`, `/add`, `/remove`, `/leave` in the open conversation: names resolved
    /// like everywhere else, the change written through the messenger, the chat read again
    /// (its system line, and who is in), and a notice of what happened.
    func performMembers(_ command: MembersCommand, in id: ConversationID) async throws -> [ChatEffect] {
        let store = local.store
        let resolver = Resolver(store: store)
        let notice: String
        switch command {
        case .list:
            let list = try store.members(of: id)
            let names = list.members.map { member in
                (member.id == local.me ? "You" : TextSanitizer.line(member.name))
                    + (member.id == list.admin ? " (admin)" : "")
            }
            notice =
                (list.includesMe ? "Members: " : "You are no longer a member. Members: ")
                + names.joined(separator: ", ")
            return state.apply(.notice(notice))
        case .add(let names, let history):
            let keys = try names.map(resolver.peer)
            _ = try await messenger.changeMembers(of: id, add: keys, remove: [], shareHistory: history)
            notice = "Added \(names.map(TextSanitizer.line).joined(separator: ", "))"
        case .remove(let names):
            let keys = try names.map(resolver.peer)
            _ = try await messenger.changeMembers(of: id, add: [], remove: keys, shareHistory: false)
            notice = "Removed \(names.map(TextSanitizer.line).joined(separator: ", "))"
        case .leave:
            _ = try await messenger.leave(id)
            notice = "You left this conversation"
        }
        return state.apply(.notice(notice)) + [
            .openConversation(id, around: nil), .loadConversations(includeArchived: false),
        ]
    }
}
