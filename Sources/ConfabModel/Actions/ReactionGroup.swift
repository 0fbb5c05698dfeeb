/// One emoji under a message: who reacted with it, in the order their reactions were
/// written. Every node that holds the same entries shows the same groups in the same order.
public struct ReactionGroup: Sendable, Equatable, Codable {
    public let emoji: String
    public let reactors: [NamedPerson]
    /// Whether I am among the reactors.
    public let includesMe: Bool

    public init(emoji: String, reactors: [NamedPerson], includesMe: Bool) {
        self.emoji = emoji
        self.reactors = reactors
        self.includesMe = includesMe
    }

    public var count: Int { reactors.count }

    /// "👍 2 Alice, Bob": the emoji, the count, and up to `names` names (then "+N").
    public func summary(names: Int = 3) -> String {
        let shown = reactors.prefix(names).map { TextSanitizer.line($0.name) }
        let more = reactors.count > names ? " +\(reactors.count - names)" : ""
        return "\(emoji) \(count) \(shown.joined(separator: ", "))\(more)"
    }
}

/// A key and this node's name for it (a petname, else the name it claimed, else a key
/// prefix), as mentions and reactions list people.
public struct NamedPerson: Sendable, Equatable, Codable {
    public let id: NodeID
    public let name: String

    public init(id: NodeID, name: String) {
        self.id = id
        self.name = name
    }
}

/// A person's reaction that was stored or taken back, as events report it.
public struct ReactionChange: Sendable, Equatable, Codable {
    public let reactor: NodeID
    public let reactorName: String
    public let emoji: String
    public let removed: Bool

    public init(reactor: NodeID, reactorName: String, emoji: String, removed: Bool) {
        self.reactor = reactor
        self.reactorName = reactorName
        self.emoji = emoji
        self.removed = removed
    }
}
