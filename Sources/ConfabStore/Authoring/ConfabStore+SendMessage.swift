import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

/// An entry of mine just written, and the message it shows as, made from what was written
/// rather than read back: what the node hands to peers and to watchers.
public struct Authored: Sendable {
    public let entry: Entry
    /// Nil when it was not stored as a message to show (then it is read like any other).
    public let message: ChatMessage?
}

/// Checks the other participants of a conversation before anything is written to it (a
/// front end refuses a message only blocked peers would get); they are read once per write.
public typealias RecipientCheck = ([ConversationSummary.Participant]) throws -> Void

extension ConfabStore {
    /// Writes one message of mine, a reply to `replyTo` when given; when this returns, the
    /// message is durably stored and queued for sending. `@name`s of members become
    /// mentions (Protocol.md §4.5).
    public func sendMessage(
        _ text: String, to conversation: ConversationID, replyTo: MessageRef? = nil, now: Date = Date()
    ) throws -> Entry {
        try writeMessage(text, to: conversation, replyTo: replyTo, now: now).entry
    }

    /// `sendMessage`, with the message as a chat shows it; `recipients` checks the other
    /// participants first.
    public func writeMessage(
        _ text: String, to conversation: ConversationID, replyTo: MessageRef? = nil, now: Date = Date(),
        recipients: RecipientCheck? = nil
    ) throws -> Authored {
        try Self.checkText(text)
        return try write { db in
            if let replyTo { try self.requireMessage(replyTo, in: conversation, for: "reply to", db: db) }
            return try self.authorMessage(
                text, in: conversation, replyTo: replyTo, db: db, now: now, recipients: recipients)
        }
    }

    /// Several messages in one transaction (`send --lines` reading a fast pipe).
    public func sendMessages(_ texts: [String], to conversation: ConversationID, now: Date = Date()) throws -> [Entry] {
        try writeMessages(texts, to: conversation, now: now).map(\.entry)
    }

    /// `sendMessages`, with the messages as a chat shows them; `recipients` checks the other
    /// participants first.
    public func writeMessages(
        _ texts: [String], to conversation: ConversationID, now: Date = Date(), recipients: RecipientCheck? = nil
    ) throws -> [Authored] {
        for text in texts { try Self.checkText(text) }
        return try write { db in
            try self.authorMessages(texts, in: conversation, db: db, now: now, recipients: recipients)
        }
    }

    /// A run of my messages in one conversation: what every one of them shares (the key,
    /// the participants, the others' part of the clock) is read once, and the validation
    /// context is flushed once. Nothing else is written in between, so each entry's clock
    /// is the first one's with my own part moved on.
    func authorMessages(
        _ texts: [String], in conversation: ConversationID, db: Database, now: Date,
        recipients: RecipientCheck? = nil
    ) throws -> [Authored] {
        guard texts.count > 1 else {
            return try texts.map {
                try authorMessage($0, in: conversation, db: db, now: now, recipients: recipients)
            }
        }
        let participants = try writingParticipants(of: conversation, db: db)
        try recipients?(participants.others)
        let key = try sealingKey(in: conversation, db: db, now: now)
        let position = try nextPosition(in: conversation, participants: participants.ids, db: db)
        var (seq, previous, clock) = (position.seq, position.previous, position.clock)
        let context = BatchContext(store: self, now: now)
        context.notePosition(position, in: conversation)
        var entries: [Entry] = []
        entries.reserveCapacity(texts.count)
        // Only some are signed; the last one's signature authenticates the rest (§4.3).
        var cadence = SigningCadence()
        for (index, text) in texts.enumerated() {
            let content = try Self.content(text, replyTo: nil, candidates: participants.candidates)
            let sealed = try ConversationCipher.sealMessage(
                content, key: key, conversationID: conversation, author: me, seq: seq)
            let draft = EntryCodec.sign(
                EntryDraft(
                    conversationID: conversation, seq: seq, previous: previous,
                    timestamp: now.millisecondsSince1970, clock: clock, body: .message(sealed: sealed)),
                with: identity, signed: false)
            let signs = cadence.signs(size: EntryCodec.encodedSize(of: draft), last: index == texts.count - 1)
            let entry = signs ? EntryCodec.signing(draft, with: identity) : draft
            context.noteAuthored(entry.hash, content: .message(content))
            try insertAuthored(entry, db: db, now: now, context: context)
            entries.append(entry)
            previous = entry.hash
            clock[me] = seq
            seq += 1
        }
        try finish(context, db: db)
        return try entries.map { try shown($0, context: context, participants: participants, db: db) }
    }

    func authorMessage(
        _ text: String, in conversation: ConversationID, replyTo: MessageRef? = nil, db: Database, now: Date,
        recipients: RecipientCheck? = nil
    ) throws -> Authored {
        // Who the message reaches, who it may mention, and that I am one of them: one read.
        let participants = try writingParticipants(of: conversation, db: db)
        try recipients?(participants.others)
        let key = try sealingKey(in: conversation, db: db, now: now)
        let content = try Self.content(text, replyTo: replyTo, candidates: participants.candidates)
        let context = BatchContext(store: self, now: now)
        let entry = try authorEntry(
            in: conversation, participants: participants.ids, db: db, now: now, context: context
        ) {
            seq in
            let sealed = try ConversationCipher.sealMessage(
                content, key: key, conversationID: conversation, author: self.me, seq: seq)
            return (.message(sealed: sealed), .message(content))
        }
        return try shown(entry, context: context, participants: participants, db: db)
    }

    /// My message as `message(_:author:seq:)` would read it back just after the write: from
    /// how it was stored (`WrittenMessage`), the participants' names, and the original of a
    /// reply. Still unsent, it is "sending"; nothing can have reacted to it or edited it yet.
    private func shown(
        _ entry: Entry, context: BatchContext, participants: WritingParticipants, db: Database
    ) throws -> Authored {
        guard let written = context.written(entry.hash) else { return Authored(entry: entry, message: nil) }
        let conversation = entry.conversationID
        // A reply's original may be a former member's, named as the history names it.
        let names =
            written.reply == nil ? nameMap(participants.others) : try nameMap(conversation: conversation, db: db)
        let people = MessageDetails(store: self, conversation: conversation, names: names, db: db)
        var message = ChatMessage(
            conversationID: conversation, author: me, authorName: people.name(of: me), seq: entry.seq, isMine: true,
            text: try people.render(written.text, written.mentions), sentAt: Date(milliseconds: entry.timestamp),
            orderKey: DisplayOrderKey(
                clockSum: written.clockSum, timestamp: entry.timestamp, author: me, seq: entry.seq),
            status: .sending)
        message.mentions = written.mentions.map { NamedPerson(id: $0.person, name: people.name(of: $0.person)) }
        message.mentionsMe = written.mentions.contains { $0.person == me }
        if let reply = written.reply { message.replyTo = try people.quote(reply) }
        return Authored(entry: entry, message: message)
    }

    /// A conversation's participants as writing a message needs them, read in one statement.
    struct WritingParticipants {
        /// Everyone, me too, in the creator's order.
        let ids: [NodeID]
        /// The others, with this node's names for them and their trust.
        let others: [ConversationSummary.Participant]

        var candidates: [Mentions.Candidate] { others.map { Mentions.Candidate(person: $0.id, name: $0.name) } }
    }

    func writingParticipants(of conversation: ConversationID, db: Database) throws -> WritingParticipants {
        var ids: [NodeID] = []
        var others: [ConversationSummary.Participant] = []
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT p.nodeId, peer.name, peer.trust FROM participant p LEFT JOIN peer ON peer.id = p.nodeId
                    WHERE p.conversationId = ? ORDER BY p.position
                    """),
            arguments: [conversation.bytes])
        {
            let id = row.nodeID("nodeId")
            ids.append(id)
            guard id != me else { continue }
            others.append(
                ConversationSummary.Participant(
                    id: id, name: (row["name"] as String?) ?? id.shortHex,
                    trust: (row["trust"] as String?).flatMap(Peer.Trust.init(rawValue:)) ?? .unverified))
        }
        return WritingParticipants(ids: ids, others: others)
    }

    static func checkText(_ text: String) throws {
        // Blank when every scalar is white space: what trimming it would leave empty, found
        // at the first other scalar rather than by copying the text (run for every message
        // received).
        guard text.unicodeScalars.contains(where: { !CharacterSet.whitespacesAndNewlines.contains($0) }) else {
            throw StoreError.invalidInput("the message is empty")
        }
        guard text.utf8.count <= Limits.maxMessageTextBytes else {
            throw StoreError.invalidInput(
                "the message is \(text.utf8.count) bytes; the limit is \(Limits.maxMessageTextBytes)")
        }
    }
}
