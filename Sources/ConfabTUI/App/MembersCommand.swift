/// A membership command typed in the chat's input bar (Protocol.md §4.8): `/members`,
/// `/add NAME… [--history]`, `/remove NAME…`, `/leave`. Any other line, one starting with
/// `/` included, is a message.
public enum MembersCommand: Equatable, Sendable {
    case list
    case add([String], history: Bool)
    case remove([String])
    case leave

    /// The command a line is, or nil for a message.
    public init?(line: String) {
        let words = line.trimmingCharacters(in: .whitespacesAndNewlines).split(whereSeparator: \.isWhitespace)
            .map(String.init)
        guard let first = words.first else { return nil }
        let rest = Array(words.dropFirst())
        switch first {
        case "/members" where rest.isEmpty: self = .list
        case "/leave" where rest.isEmpty: self = .leave
        case "/add" where !rest.filter({ $0 != "--history" }).isEmpty:
            self = .add(rest.filter { $0 != "--history" }, history: rest.contains("--history"))
        case "/remove" where !rest.isEmpty: self = .remove(rest)
        default: return nil
        }
    }
}
