import ConfabModel
import GRDB

/// What a shown message carries beyond its own row, read for one conversation at a time:
/// its mentions drawn with this node's names, the message it replies to, its reactions.
struct MessageDetails {
    let store: ConfabStore
    let conversation: ConversationID
    /// Participants' names here, mine "You".
    let names: [NodeID: String]
    let db: Database

    init(store: ConfabStore, conversation: ConversationID, names: [NodeID: String], db: Database) {
        self.store = store
        self.conversation = conversation
        self.names = names
        self.db = db
    }

    func name(of person: NodeID) -> String { names[person] ?? person.shortHex }

    /// How a mention of `person` reads: my own display name for me (not "You").
    private func mentionName(of person: NodeID) throws -> String {
        guard person == store.me else { return name(of: person) }
        return try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'displayName'") ?? "you"
    }

    /// The mentions stored for a message (valid ones only were stored), in text order.
    func mentions(of message: MessageRef) throws -> [Mention] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT person, start, length FROM mention WHERE conversationId = ? AND author = ? AND seq = ?
                    ORDER BY start
                    """),
            arguments: [conversation.bytes, message.author.bytes, message.seq]
        ).map { Mention(person: $0.nodeID("person"), start: $0["start"], length: $0["length"]) }
    }

    /// The text with each mention drawn as this node names the person.
    func render(_ text: String, _ mentions: [Mention]) throws -> String {
        guard !mentions.isEmpty else { return text }
        var names: [NodeID: String] = [:]
        for mention in mentions where names[mention.person] == nil {
            names[mention.person] = try mentionName(of: mention.person)
        }
        // Stored mentions passed `Mentions.valid` against the text they were stored with;
        // checked again so that a text changed some other way can never be cut wrong.
        let valid = Mentions.valid(mentions, in: text) { _ in true }
        return Mentions.render(text, mentions: valid) { names[$0] ?? $0.shortHex }
    }

    /// The original of a reply as it reads now.
    func quote(_ ref: MessageRef) throws -> Quote {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT text, deletedAt FROM message WHERE conversationId = ? AND author = ? AND seq = ?"),
            arguments: [conversation.bytes, ref.author.bytes, ref.seq])
        let text = try (row?["text"] as String?).map { try render($0, try mentions(of: ref)) }
        return Quote(
            ref: ref, authorName: name(of: ref.author), text: text, isDeleted: (row?["deletedAt"] as Int64?) != nil,
            isHeld: row != nil)
    }

    /// The emoji on a message, most reactors first (then the one reacted with first, then
    /// by the emoji itself); each group's reactors in the order they reacted. Every node
    /// holding the same entries shows the same.
    func reactions(to message: MessageRef) throws -> [ReactionGroup] {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT reactor, emoji, timestamp FROM reaction
                    WHERE conversationId = ? AND targetAuthor = ? AND targetSeq = ? AND removed = 0
                    ORDER BY timestamp, reactor
                    """),
            arguments: [conversation.bytes, message.author.bytes, message.seq])
        guard !rows.isEmpty else { return [] }
        // Grouped by the emoji's bytes, as the table keys them (Swift would merge emoji
        // that are only canonically equivalent).
        var groups: [[UInt8]: (emoji: String, first: Int64, reactors: [NodeID])] = [:]
        for row in rows {
            let emoji: String = row["emoji"]
            // Applied on every node alike, drawn only where this platform knows it as one
            // emoji (Protocol.md §4.5): text, or two emoji, are not shown as a reaction.
            guard ReactionEmoji.isOneEmoji(emoji) else { continue }
            let key = Array(emoji.utf8)
            if groups[key] == nil { groups[key] = (emoji, row["timestamp"], []) }
            groups[key]?.reactors.append(row.nodeID("reactor"))
        }
        return groups.sorted { a, b in
            if a.value.reactors.count != b.value.reactors.count {
                return a.value.reactors.count > b.value.reactors.count
            }
            if a.value.first != b.value.first { return a.value.first < b.value.first }
            return a.key.lexicographicallyPrecedes(b.key)
        }.map { _, group in
            ReactionGroup(
                emoji: group.emoji, reactors: group.reactors.map { NamedPerson(id: $0, name: name(of: $0)) },
                includesMe: group.reactors.contains(store.me))
        }
    }
}
