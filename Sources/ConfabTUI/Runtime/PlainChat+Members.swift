import ConfabClient
import ConfabModel

/// The plain chat's membership commands: `/members`, `/add NAME… [--history]`, `/remove
/// NAME…` and `/leave`, on the open conversation (Protocol.md §4.8).
extension PlainChat {
    func listMembers() throws {
        guard let open = openOrSay() else { return }
        let list = try local.store.members(of: open)
        for member in list.members {
            let name = member.id == local.me ? "You" : TextSanitizer.line(member.name)
            write("\(name)\(member.id == list.admin ? " (admin)" : "")")
        }
        for member in list.former where member.id != local.me {
            write("\(TextSanitizer.line(member.name)) (no longer a member)")
        }
        if !list.includesMe { write("You are no longer a member of this conversation") }
    }

    func changeMembers(_ argument: String, adding: Bool) async throws {
        var words = argument.split(separator: " ").map(String.init)
        let history = words.contains("--history")
        words.removeAll { $0 == "--history" }
        guard !words.isEmpty else {
            write(adding ? "/add NAME [NAME…] [--history] — peer names as in /peers" : "/remove NAME [NAME…]")
            return
        }
        guard let open = openOrSay() else { return }
        let resolver = Resolver(store: local.store)
        let keys = try words.map { try resolver.peer($0) }
        _ = try await messenger.changeMembers(
            of: open, add: adding ? keys : [], remove: adding ? [] : keys, shareHistory: adding && history)
        write("* You \(adding ? "added" : "removed") \(words.map(TextSanitizer.line).joined(separator: ", "))")
    }

    func leaveOpen() async throws {
        guard let open = openOrSay() else { return }
        _ = try await messenger.leave(open)
        write("* You left")
    }

    private func openOrSay() -> ConversationID? {
        if open == nil { write("no conversation is open — /open NAME first") }
        return open
    }
}
