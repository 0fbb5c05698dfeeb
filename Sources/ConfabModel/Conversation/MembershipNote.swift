/// What a system line in a conversation's history says: who a members entry added or
/// removed, or that its author left (Protocol.md §4.8). Names are as known here.
public struct MembershipNote: Sendable, Equatable, Codable {
    public struct Member: Sendable, Equatable, Codable {
        public let id: NodeID
        public let name: String

        public init(id: NodeID, name: String) {
            self.id = id
            self.name = name
        }
    }

    public let added: [Member]
    public let removed: [Member]
    public let left: Bool

    public init(added: [Member], removed: [Member], left: Bool) {
        self.added = added
        self.removed = removed
        self.left = left
    }

    /// "Alice added Carol and Dave", "Alice removed Bob", "Bob left"; `author` is the name
    /// of whoever wrote the change ("You" for mine).
    public func sentence(by author: String) -> String {
        if left { return "\(author) left" }
        var parts: [String] = []
        if !added.isEmpty { parts.append("added \(Self.list(added.map(\.name)))") }
        if !removed.isEmpty { parts.append("removed \(Self.list(removed.map(\.name)))") }
        return "\(author) \(parts.joined(separator: " and "))"
    }

    private static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }
}
